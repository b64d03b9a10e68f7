// `npm run chain`: a local EVM node for trying the Intents API by hand (README, "Transactions").
// The same node the tests use (Hardhat's EDR, test/helpers/evm-node.ts), over JSON-RPC on
// 127.0.0.1:$CHAIN_PORT (default 8545) with chain id $CHAIN_ID (default 31337); every accepted
// transaction is mined at once, and `hardhat_setBalance` funds an address. Ctrl-C stops it.
import { startEvmNode } from '../helpers/evm-node.ts';

const node = await startEvmNode({ chainId: Number(process.env.CHAIN_ID ?? 31337), port: Number(process.env.CHAIN_PORT ?? 8545) });
process.stdout.write(`local chain ${node.chainId} on ${node.url}\n`);
const stop = () => { void node.stop().then(() => process.exit(0)); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
