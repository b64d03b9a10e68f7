// `npm run tron`: a local fake Tron full node for trying the Intents API by hand (docs/tron.md).
// The same node the tests use (test/helpers/tron-node.ts: java-tron's HTTP API over an in-memory
// ledger, every broadcast decoded and its signature verified with tronweb) on
// 127.0.0.1:$TRON_PORT (default 8090, java-tron's HTTP port), a block every $TRON_BLOCK_MS
// (default 3000, Tron's block time). Prints one JSON line ({"rpc_url": …, "control_url": …}) and
// stays up; Ctrl-C stops it. Controls (POST, JSON): control_url/fund {address, sun},
// /token {} → {contract} (a TRC-20), /mint {contract, address, amount}, /blocks {n},
// /advance_time {ms}.
import { startTronNode } from '../helpers/tron-node.ts';

const node = await startTronNode({ port: Number(process.env.TRON_PORT ?? 8090), blockIntervalMs: Number(process.env.TRON_BLOCK_MS ?? 3000) });
process.stdout.write(`${JSON.stringify({ rpc_url: node.url, control_url: node.controlUrl })}\n`);
const stop = () => { void node.stop().then(() => process.exit(0)); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
