// `npm run xrp`: a local XRP Ledger server for trying the Intents API by hand (docs/xrp.md). The
// same fake server the tests use (test/helpers/xrpl-node.ts: rippled's JSON-RPC for the calls the
// service makes; every submitted blob decoded and its signature verified with xrpl's own code) on
// 127.0.0.1:$XRP_PORT (default 51234, rippled's JSON-RPC port), closing a ledger every second.
// Prints one JSON line ({"rpc_url": …, "control_url": …}) and stays up; Ctrl-C stops it. Controls:
// POST control_url/fund {"address","xrp"}, /close {"ledgers"}, /require-dest-tag {"address"}.
import { startXrplNode } from '../helpers/xrpl-node.ts';

const node = await startXrplNode({ port: Number(process.env.XRP_PORT ?? 51234), closeMs: 1000 });
process.stdout.write(`${JSON.stringify({ rpc_url: node.url, control_url: node.controlUrl, network: 'devnet' })}\n`);
const stop = () => { void node.stop().then(() => process.exit(0)); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
