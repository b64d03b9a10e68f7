// `npm run solana`: a local Solana node for trying the Intents API by hand (README, docs
// walk-through). The same node the tests use (LiteSVM behind JSON-RPC, test/helpers/svm-node.ts)
// on 127.0.0.1:$SOLANA_PORT (default 8899, solana-test-validator's port), with the SPL Token and
// Associated Token Account programs. Prints one JSON line ({"url": …}) and stays up; Ctrl-C stops it.
// Besides the real RPC calls (requestAirdrop funds an address), svm_createMint [decimals] makes a
// mint, svm_mintTo [mint, owner, amount] mints base units to the owner's token account,
// svm_expireBlockhash moves past every blockhash issued so far, svm_advanceBlocks [n] adds blocks.
import { startSvmNode } from '../helpers/svm-node.ts';

const node = await startSvmNode({ port: Number(process.env.SOLANA_PORT ?? 8899) });
process.stdout.write(`${JSON.stringify({ url: node.url, network: 'localnet' })}\n`);
const stop = () => { void node.stop().then(() => process.exit(0)); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
