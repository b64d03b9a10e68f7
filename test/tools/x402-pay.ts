// `npm run x402-pay -- --key <payer key> --network <caip-2> --asset <token> [--token <bearer>] <url>`:
// a GET that pays a 402 with x402, as an x402 client does (@x402/fetch with the exact EVM scheme,
// spending at most $0.10 of that one token). Prints one JSON line: {"status", "body",
// "payment_response"} (the decoded PAYMENT-RESPONSE, or null). For docs/billing.md.
import { parseArgs } from 'node:util';
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { toClientEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { key: { type: 'string' }, network: { type: 'string' }, asset: { type: 'string' }, token: { type: 'string' } },
});
const [url] = positionals;
if (!url || !values.key || !values.network || !values.asset) {
  process.stderr.write('usage: x402-pay --key <payer key> --network <caip-2> --asset <token> [--token <bearer>] <url>\n');
  process.exit(2);
}
const network = values.network as `${string}:${string}`;
const client = new x402Client()
  .register(network, new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(values.key as `0x${string}`))))
  .setSpendControls({ allowedAssets: [{ network, asset: values.asset, maxAmountPerPayment: '100000' }] });
const pay = wrapFetchWithPayment(fetch, client);
const res = await pay(url, { headers: values.token ? { authorization: `Bearer ${values.token}` } : {} });
const text = await res.text();
let body: unknown = text;
try { body = JSON.parse(text); } catch { /* not JSON: shown as text */ }
const receipt = res.headers.get('payment-response');
process.stdout.write(`${JSON.stringify({ status: res.status, body, payment_response: receipt ? decodePaymentResponseHeader(receipt) : null })}\n`);
