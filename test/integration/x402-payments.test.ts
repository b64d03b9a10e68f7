// x402 pay-per-request end to end (issue 34 §4): a stack of its own (taking payments changes what
// every paid route answers), a real EVM node with a USDC-like EIP-3009 token, and a facilitator
// built from the x402 packages. An operator configures payments (GET/PUT /v1/admin/x402); then a
// call with no credentials on a paid route gets 402 with the payment requirements (not 401), an
// organization past its quota gets the same 402, and @x402/fetch pays: the request is served,
// the payment settles on chain, and the quota is not touched. A proof pays once; a failed request
// gives its payment back; a settlement that fails is retried by the x402-settle workflow.
import { randomUUID } from 'node:crypto';
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { toClientEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { call, closeDb } from '../helpers/api.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';
import { startEvmNode, type EvmNode } from '../helpers/evm-node.ts';
import { deployEip3009Token, type Eip3009Token } from '../helpers/eip3009-token.ts';
import { newAddress } from '../helpers/evm-contracts.ts';
import { startX402Facilitator, type X402Facilitator } from '../helpers/x402-facilitator.ts';

const OPERATOR_EMAIL = 'x402-operator@example.com';
const stack = new IsolatedStack('x402');
const payer = privateKeyToAccount(generatePrivateKey());
const payTo = newAddress();
let base: string;
let node: EvmNode;
let token: Eip3009Token;
let facilitator: X402Facilitator;
let operator: string;
let owner: string;
let secretUrl: string;
let orgId: string;

/** fetch that pays 402s with x402 as the payer, remembering the payment headers it sent. */
const payerClient = () => new x402Client().register(facilitator.network, new ExactEvmScheme(toClientEvmSigner(payer)))
  .setSpendControls({ allowedAssets: [{ network: facilitator.network, asset: token.address, maxAmountPerPayment: '100000' }] });

function payingFetch(sent: string[]): typeof fetch {
  const client = payerClient();
  const recording: typeof fetch = async (input, init) => {
    const req = new Request(input, init);
    const sig = req.headers.get('payment-signature');
    if (sig) sent.push(sig);
    return fetch(req);
  };
  return wrapFetchWithPayment(recording, client);
}

async function signupUser(email: string): Promise<string> {
  const r = await call('POST', '/v1/auth/signup', { base, body: { email, password: 'correct-horse-battery' } });
  expect(r.status).toBe(200);
  return r.body.access_token as string;
}

const payments = async () => (await stack.pool.query('SELECT status, amount, network, payer, transaction, org_id FROM x402_payments ORDER BY created_at')).rows;

beforeAll(async () => {
  node = await startEvmNode();
  token = await deployEip3009Token(node);
  await token.mint(payer.address, 1_000_000n); // 1 USDC
  facilitator = await startX402Facilitator({ node });
  await stack.start({ REQUEST_QUOTAS: 'on', PLATFORM_ADMIN_EMAILS: OPERATOR_EMAIL, OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  base = stack.apiUrl;
  operator = await signupUser(OPERATOR_EMAIL);
  await stack.pool.query('UPDATE users SET email_verified = true WHERE email = $1', [OPERATOR_EMAIL]);
  owner = await signupUser('x402-owner@example.com');
  // Its quota before its first billable request (a process keeps an organization's quota a while).
  orgId = (await call('GET', '/v1/auth/me', { base, token: owner })).body.org_id as string;
  expect((await call('PUT', `/v1/admin/orgs/${orgId}/limits`, { base, token: operator, body: { free_tier_override: 3 } })).status).toBe(200);
  const vault = await call('POST', '/v1/vaults', { base, token: owner, body: { name: 'paid' } });
  secretUrl = `/v1/vaults/${vault.body.id}/secrets/app/api-key`;
  expect((await call('PUT', secretUrl, { base, token: owner, body: { value: 'sk-paid', type: 'api_key' } })).status).toBe(201);
}, 240_000);

afterAll(async () => {
  await stack.stop();
  await facilitator?.stop();
  await node?.stop();
  await closeDb();
});

test('operators configure x402; bad settings are refused and change nothing; others get 403', async () => {
  expect((await call('GET', '/v1/admin/x402', { base, token: owner })).status).toBe(403);
  const initial = await call('GET', '/v1/admin/x402', { base, token: operator });
  expect(initial.status).toBe(200);
  expect(initial.body).toEqual({
    enabled: false, network: 'eip155:8453', scheme: 'exact', free_tier_limit: 1000, asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    asset_name: 'USD Coin', asset_version: '2', asset_decimals: 6, max_timeout_seconds: 60,
  });
  // Off: a paid route without credentials is a 401 as ever.
  expect((await call('GET', secretUrl, { base })).status).toBe(401);

  for (const body of [
    { enabled: true }, // no recipient, no facilitator
    { pay_to: 'not-an-address' },
    { free_tier_limit: 5 },
    { network: 'base mainnet' },
    { facilitator_url: 'ftp://facilitator' },
    { pay_to: payTo, payment_address: newAddress() },
    { scheme: 'upto' },
    { unknown_field: 1 },
  ]) {
    const r = await call('PUT', '/v1/admin/x402', { base, token: operator, body });
    expect([r.status, r.body.status]).toEqual([400, 400]);
  }
  expect((await call('GET', '/v1/admin/x402', { base, token: operator })).body).toEqual(initial.body);

  const put = await call('PUT', '/v1/admin/x402', {
    base, token: operator,
    body: { enabled: true, payment_address: payTo, network: facilitator.network, asset: token.address, facilitator_url: facilitator.url, free_tier_limit: 1000 },
  });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ enabled: true, pay_to: payTo, payment_address: payTo, network: facilitator.network, asset: token.address, facilitator_url: facilitator.url });
  expect((await call('GET', '/v1/admin/x402', { base, token: operator })).body).toEqual(put.body);
  const audit = await stack.pool.query("SELECT count(*)::int AS n FROM audit_events WHERE action = 'admin.x402_updated'");
  expect(audit.rows[0].n).toBe(1);
});

test('on: no credentials on a paid route is 402 with the requirements in both forms; free routes still say 401', async () => {
  const r = await call('GET', secretUrl, { base });
  expect(r.status).toBe(402);
  expect(r.body).toMatchObject({
    x402Version: 1, error: 'X-PAYMENT header is required',
    accepts: [{
      scheme: 'exact', network: facilitator.network, payTo, asset: token.address, price: '0.0015', maxAmountRequired: '1500',
      resource: `${base}${secretUrl}`, maxTimeoutSeconds: 60, mimeType: 'application/json', description: 'read_secret',
    }],
  });
  const v2 = JSON.parse(Buffer.from(r.headers.get('payment-required')!, 'base64').toString('utf8'));
  expect(v2.accepts).toEqual([{ scheme: 'exact', network: facilitator.network, amount: '1500', asset: token.address, payTo, maxTimeoutSeconds: 60, extra: { name: 'USD Coin', version: '2' } }]);
  const write = await call('PUT', secretUrl, { base, body: { value: 'x', type: 'api_key' } });
  expect([write.status, write.body.accepts[0].price]).toEqual([402, '0.0075']);
  const simulate = await call('POST', `/v1/agents/${randomUUID()}/transactions/simulate`, { base, body: {} });
  expect([simulate.status, simulate.body.accepts[0].price, simulate.body.accepts[0].maxAmountRequired]).toEqual([402, '0.075', '75000']);
  expect((await call('GET', '/v1/vaults', { base })).status).toBe(401);
  const garbled = await call('GET', secretUrl, { base, headers: { 'x-payment': 'not a payment' } });
  expect([garbled.status, garbled.body.error]).toEqual([402, expect.stringContaining('malformed')]);
});

test('past its quota an organization gets 402; x402 pays the request, settles on chain once, and leaves the quota alone', async () => {
  expect((await call('PATCH', '/v1/billing/overage-method', { base, token: owner, body: { method: 'x402' } })).status).toBe(200);
  // The secret's creation was one; two reads make three.
  for (let i = 0; i < 2; i++) expect((await call('GET', secretUrl, { base, token: owner })).status).toBe(200);
  const over = await call('GET', secretUrl, { base, token: owner });
  expect(over.status).toBe(402);
  expect(over.body).toMatchObject({ x402Version: 1, accepts: [{ price: '0.0015', payTo }] });
  expect(over.body.error).toContain('quota');
  expect(over.headers.get('x-ratelimit-requests-percent')).toBe('100');

  const sent: string[] = [];
  const paid = await payingFetch(sent)(`${base}${secretUrl}`, { headers: { authorization: `Bearer ${owner}` } });
  expect(paid.status).toBe(200);
  expect(((await paid.json()) as { value: string }).value).toBe('sk-paid');
  const receipt = decodePaymentResponseHeader(paid.headers.get('payment-response')!);
  expect(receipt).toMatchObject({ success: true, network: facilitator.network, payer: payer.address });
  expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
  expect(paid.headers.get('x-payment-response')).toBe(paid.headers.get('payment-response'));
  expect(await token.balanceOf(payTo)).toBe(1500n);
  expect(await payments()).toEqual([{ status: 'settled', amount: '1500', network: facilitator.network, payer: payer.address, transaction: receipt.transaction, org_id: orgId }]);
  const usage = await call('GET', '/v1/billing/usage', { base, token: owner });
  expect(usage.body.current_month.total_requests).toBe(3);

  // The same proof again: refused, nothing moves.
  expect(sent).toHaveLength(1);
  const replay = await call('GET', secretUrl, { base, token: owner, headers: { 'payment-signature': sent[0]! } });
  expect(replay.status).toBe(402);
  expect(replay.body.error).toContain('already used');
  expect(await token.balanceOf(payTo)).toBe(1500n);
}, 60_000);

test('a request that fails gives its payment back; a settlement that fails is retried until it lands', async () => {
  const missing = await payingFetch([])(`${base}${secretUrl}-missing`, { headers: { authorization: `Bearer ${owner}` } });
  expect(missing.status).toBe(404);
  expect(missing.headers.get('payment-response')).toBeNull();
  expect((await payments()).map((p) => p.status)).toEqual(['settled']);
  expect(await token.balanceOf(payTo)).toBe(1500n);

  facilitator.failNextSettles(1);
  const paid = await payingFetch([])(`${base}${secretUrl}`, { headers: { authorization: `Bearer ${owner}` } });
  expect(paid.status).toBe(200);
  expect(paid.headers.get('payment-response')).toBeNull();
  const deadline = Date.now() + 60_000;
  let statuses: string[] = [];
  while (Date.now() < deadline) {
    statuses = (await payments()).map((p) => p.status);
    if (statuses[1] === 'settled') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(statuses).toEqual(['settled', 'settled']);
  expect(await token.balanceOf(payTo)).toBe(3000n);
  const attempts = await stack.pool.query('SELECT attempts FROM x402_payments ORDER BY created_at');
  expect(attempts.rows.map((r: { attempts: number }) => r.attempts)).toEqual([1, 2]);
}, 90_000);

test('an authorization valid for longer than the payment asked is refused, and nothing is claimed', async () => {
  const asked = await call('GET', secretUrl, { base });
  const required = JSON.parse(Buffer.from(asked.headers.get('payment-required')!, 'base64').toString('utf8'));
  required.accepts[0].maxTimeoutSeconds = 3600;
  const payment = await payerClient().createPaymentPayload(required);
  const before = (await payments()).length;
  const r = await call('GET', secretUrl, { base, token: owner, headers: { 'payment-signature': Buffer.from(JSON.stringify(payment)).toString('base64') } });
  expect(r.status).toBe(402);
  expect(r.body.error).toContain('valid for too long');
  expect(await payments()).toHaveLength(before);
});

test("a settlement whose answer was lost is found on chain by the retry, on a worker started after the first was killed: paid once", async () => {
  // The chains table knows the local node, so the retry can look for the settlement there.
  const chain = await call('POST', '/v1/admin/chains', { base, token: operator, body: { name: 'x402-local', chain_id: node.chainId, rpc_url: node.url } });
  expect(chain.status).toBe(201);
  await stack.killWorker();
  const before = await token.balanceOf(payTo);
  facilitator.failNextSettles(1, { afterSettling: true }); // settled on chain, the answer lost
  const paid = await payingFetch([])(`${base}${secretUrl}`, { headers: { authorization: `Bearer ${owner}` } });
  expect(paid.status).toBe(200);
  expect(paid.headers.get('payment-response')).toBeNull();
  expect(await token.balanceOf(payTo)).toBe(before + 1500n);
  const last = async () => (await stack.pool.query('SELECT status, transaction FROM x402_payments ORDER BY created_at DESC LIMIT 1')).rows[0];
  expect((await last()).status).toBe('settle_failed');

  stack.startWorker();
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && (await last()).status !== 'settled') await new Promise((r) => setTimeout(r, 200));
  const row = await last();
  expect(row.status).toBe('settled');
  expect(row.transaction).toMatch(/^0x[0-9a-f]{64}$/);
  expect(await token.balanceOf(payTo)).toBe(before + 1500n);
}, 120_000);
