// `npm run x402`: a local chain to pay x402 requests on, for trying x402 by hand (docs/billing.md).
// The pieces the tests use: a local EVM node (Hardhat's EDR), a USDC-like EIP-3009 token, and a
// facilitator built from the x402 packages (POST /verify, /settle). A fresh payer key holds 1 USDC
// of the token. Prints one JSON line ({"rpc_url", "network", "asset", "facilitator_url",
// "payer_key", "payer"}) and stays up; Ctrl-C stops it.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startEvmNode } from '../helpers/evm-node.ts';
import { deployEip3009Token } from '../helpers/eip3009-token.ts';
import { startX402Facilitator } from '../helpers/x402-facilitator.ts';

const node = await startEvmNode();
const token = await deployEip3009Token(node);
const payerKey = generatePrivateKey();
const payer = privateKeyToAccount(payerKey).address;
await token.mint(payer, 1_000_000n);
const facilitator = await startX402Facilitator({ node });
process.stdout.write(`${JSON.stringify({
  rpc_url: node.url, network: facilitator.network, asset: token.address, facilitator_url: facilitator.url, payer_key: payerKey, payer,
})}\n`);
const stop = () => { void facilitator.stop().then(() => node.stop()).then(() => process.exit(0)); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
