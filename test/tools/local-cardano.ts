// `npm run cardano`: a local Cardano provider for trying the Intents API by hand (docs/cardano.md).
// The same fake the tests use (test/helpers/cardano-node.ts: Blockfrost's routes over an
// in-memory ledger that decodes and verifies every submission with the serialization library)
// on 127.0.0.1:$CARDANO_PORT (default 3010). Prints one JSON line ({"rpc_url": …, "control_url": …})
// and stays up; Ctrl-C stops it. Controls: POST {control_url}/fund {"address", "lovelace"},
// POST {control_url}/advance {"slots"}, POST {control_url}/pause and /resume, GET {control_url}/state.
import { startCardanoNode } from '../helpers/cardano-node.ts';

const node = await startCardanoNode({ port: Number(process.env.CARDANO_PORT ?? 3010) });
process.stdout.write(`${JSON.stringify({ rpc_url: node.url, control_url: node.controlUrl, network: 'preprod' })}\n`);
const stop = () => { void node.stop().then(() => process.exit(0)); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
