// Monthly request quotas over HTTP (issue 34 §1): a stack of its own with REQUEST_QUOTAS=on. A
// free organization's billable requests (secret writes and reads) are admitted up to its 1,000,
// with the quota headers on every authenticated answer, then refused with 402 while free routes
// still answer; GET /v1/billing/usage shows the month. The shared test stack runs with quotas off:
// nothing is counted there, no header is sent, and the summary says so.
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { call, closeDb, signup } from '../helpers/api.ts';
import { projectRoot } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';

const stack = new IsolatedStack('quotas');
const OPERATOR_EMAIL = 'quota-operator@example.com';
let base: string;

beforeAll(async () => {
  await stack.start({ REQUEST_QUOTAS: 'on', PLATFORM_ADMIN_EMAILS: OPERATOR_EMAIL });
  base = stack.apiUrl;
}, 180_000);

afterAll(async () => {
  await stack.stop();
  await closeDb();
});

test('a free organization: 1,000 billable requests admitted with the quota headers, the next refused with 402; free routes still answer', async () => {
  const owner = await call('POST', '/v1/auth/signup', { base, body: { email: 'quota-owner@example.com', password: 'correct-horse-battery' } });
  const token = owner.body.access_token as string;
  const vault = await call('POST', '/v1/vaults', { base, token, body: { name: 'metered' } });
  expect(vault.status).toBe(201);
  const secretUrl = `/v1/vaults/${vault.body.id}/secrets/app/key`;
  const put = await call('PUT', secretUrl, { base, token, body: { value: 'v1', type: 'api_key' } });
  expect(put.status).toBe(201);
  expect(put.headers.get('x-ratelimit-requests-limit')).toBe('1000');

  // 999 reads, 16 at a time: with the write, the month's 1,000.
  let ok = 0;
  for (let done = 0; done < 999;) {
    const batch = Math.min(16, 999 - done);
    const answers = await Promise.all(Array.from({ length: batch }, () => fetch(`${base}${secretUrl}`, { headers: { authorization: `Bearer ${token}` } })));
    ok += answers.filter((r) => r.status === 200).length;
    done += batch;
  }
  expect(ok).toBe(999);

  const over = await call('GET', secretUrl, { base, token });
  expect(over.status).toBe(402);
  expect(over.body).toMatchObject({ type: 'quota_exceeded', status: 402, quota: 1000 });
  expect(over.headers.get('x-ratelimit-requests-limit')).toBe('1000');
  expect(over.headers.get('x-ratelimit-requests-percent')).toBe('100');
  expect(over.headers.get('x-quota-warning')).toContain('100%');

  // Listing is free: answered, with the headers.
  const list = await call('GET', '/v1/vaults', { base, token });
  expect(list.status).toBe(200);
  expect(list.headers.get('x-ratelimit-requests-limit')).toBe('1000');
  // And the credit headers, as this api process last read them (within 30 s; never awaited).
  expect([list.headers.get('x-overage-method'), list.headers.get('x-credit-balance-cents'), list.headers.get('x-credit-expiring-soon')]).toEqual(['credits', '0', '0']);

  const usage = await call('GET', '/v1/billing/usage', { base, token });
  expect(usage.status).toBe(200);
  expect(usage.body).toMatchObject({
    billing_tier: 'free', free_tier_limit: 1000, metered: true,
    current_month: { total_requests: 1000, paid_requests: 0, free_requests: 1000, total_cost_usd: '0.00' },
  });
  const row = await stack.pool.query('SELECT used, leased FROM org_request_usage');
  expect(row.rows).toEqual([{ used: '1000', leased: '1000' }]);
}, 120_000);

test("an operator's override is the quota: 20 billable requests, the 21st refused; sponsorship then lifts it", async () => {
  const up = await call('POST', '/v1/auth/signup', { base, body: { email: OPERATOR_EMAIL, password: 'correct-horse-battery' } });
  await stack.pool.query('UPDATE users SET email_verified = true WHERE email = $1', [OPERATOR_EMAIL]);
  const operator = up.body.access_token as string;
  const owner = await call('POST', '/v1/auth/signup', { base, body: { email: 'quota-override@example.com', password: 'correct-horse-battery' } });
  const token = owner.body.access_token as string;
  const orgId = (await call('GET', '/v1/auth/me', { base, token })).body.org_id as string;
  const limits = await call('PUT', `/v1/admin/orgs/${orgId}/limits`, { base, token: operator, body: { free_tier_override: 20 } });
  expect(limits.status).toBe(200);

  const vault = await call('POST', '/v1/vaults', { base, token, body: { name: 'overridden' } });
  const secretUrl = `/v1/vaults/${vault.body.id}/secrets/k`;
  expect((await call('PUT', secretUrl, { base, token, body: { value: 'v', type: 'api_key' } })).headers.get('x-ratelimit-requests-limit')).toBe('20');
  const reads = await Promise.all(Array.from({ length: 19 }, () => call('GET', secretUrl, { base, token })));
  expect(reads.map((r) => r.status)).toEqual(Array(19).fill(200));
  const over = await call('GET', secretUrl, { base, token });
  expect(over.status).toBe(402);
  expect(over.body).toMatchObject({ type: 'quota_exceeded', quota: 20 });

  // Sponsored: no quota at all. The api reads an organization's plan again within its 30 s cache;
  // a fresh process (this stack's next start) would see it at once, so the database says it here.
  const sponsored = await call('PUT', `/v1/admin/orgs/${orgId}/limits`, { base, token: operator, body: { is_sponsored: true } });
  expect(sponsored.body).toMatchObject({ is_sponsored: true, in_force: true });
  expect(sponsored.body.request_quota).toBeUndefined();
  expect((await call('GET', '/v1/billing/usage', { base, token })).body.free_tier_limit).toBeUndefined();
});

/** A paid top-up of `micros` into the stack's database, as the processor's webhook lands it. */
const topUp = (orgId: string, micros: number, ref: string) => JSON.parse(execFileSync('sh',
  [path.join(projectRoot, 'bin', 'node24'), path.join(projectRoot, 'test/integration/credits-topup.probe.ts'), orgId, String(micros), ref],
  { cwd: projectRoot, env: { ...process.env, DATABASE_URL: stack.databaseUrl } }).toString()) as boolean;

/** Asks until an answer is not 402 (the api asks for credit again a second after it found none). */
async function untilPaid(url: string, token: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await call('GET', url, { base, token });
    if (r.status !== 402 || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('over the quota, prepaid credits pay at the route price until they run out; the usage, balance and ledger show it', async () => {
  const up = await call('POST', '/v1/auth/signup', { base, body: { email: OPERATOR_EMAIL, password: 'correct-horse-battery' } });
  const operator = up.status === 200 ? up.body.access_token as string
    : (await call('POST', '/v1/auth/token', { base, body: { email: OPERATOR_EMAIL, password: 'correct-horse-battery' } })).body.access_token as string;
  await stack.pool.query('UPDATE users SET email_verified = true WHERE email = $1', [OPERATOR_EMAIL]);
  const owner = await call('POST', '/v1/auth/signup', { base, body: { email: 'quota-credits@example.com', password: 'correct-horse-battery' } });
  const token = owner.body.access_token as string;
  const orgId = (await call('GET', '/v1/auth/me', { base, token })).body.org_id as string;
  expect((await call('PUT', `/v1/admin/orgs/${orgId}/limits`, { base, token: operator, body: { free_tier_override: 2 } })).status).toBe(200);

  const vault = await call('POST', '/v1/vaults', { base, token, body: { name: 'credits' } });
  const secretUrl = `/v1/vaults/${vault.body.id}/secrets/k`;
  expect((await call('PUT', secretUrl, { base, token, body: { value: 'v', type: 'api_key' } })).status).toBe(201);
  expect((await call('GET', secretUrl, { base, token })).status).toBe(200);
  const none = await call('GET', secretUrl, { base, token });
  expect(none.status).toBe(402);
  expect(none.body.detail).toContain('prepaid credits');

  // $0.0035 bought: three reads at $0.001, the fourth would need more than the $0.0005 left.
  expect(topUp(orgId, 3_500, 'pay_quota_credits')).toBe(true);
  expect(topUp(orgId, 3_500, 'pay_quota_credits')).toBe(false); // the processor reports it again: once
  const first = await untilPaid(secretUrl, token);
  expect(first.status).toBe(200);
  expect(first.headers.get('x-overage-method')).toBe('credits');
  expect(first.headers.get('x-ratelimit-requests-limit')).toBe('2');
  expect((await call('GET', secretUrl, { base, token })).status).toBe(200);
  expect((await call('GET', secretUrl, { base, token })).status).toBe(200);
  expect((await call('GET', secretUrl, { base, token })).status).toBe(402);

  const usage = await call('GET', '/v1/billing/usage', { base, token });
  expect(usage.body).toMatchObject({
    free_tier_limit: 2, current_month: { total_requests: 5, paid_requests: 3, free_requests: 2, total_cost_usd: '0.003' },
  });
  const balance = await call('GET', '/v1/billing/credits/balance', { base, token });
  expect(balance.status).toBe(200);
  expect(balance.body).toEqual({ balance_cents: 0, balance_usd: '0.0005', expiring_within_90_days: { amount_cents: 0 } });
  const ledger = await call('GET', '/v1/billing/credits/transactions?limit=10', { base, token });
  expect(ledger.status).toBe(200);
  expect(ledger.body).toMatchObject({ page: 1, limit: 10, offset: 0, total: ledger.body.transactions.length });
  const kinds = ledger.body.transactions.map((t: { type: string }) => t.type);
  expect(kinds[kinds.length - 1]).toBe('topup');
  expect(ledger.body.transactions[kinds.length - 1]).toMatchObject({ amount_usd: '0.0035', balance_after_usd: '0.0035', description: 'Credit top-up' });
  const spent = ledger.body.transactions.filter((t: { type: string }) => t.type === 'usage');
  expect(spent.reduce((sum: number, t: { amount_usd: string }) => sum + Number(t.amount_usd) * 1e6, 0)).toBeCloseTo(-3_000);
  expect(ledger.body.transactions[0].balance_after_usd).toBe('0.0005');

  // x402 chosen: credits no longer pay (the api keeps what it leased; here nothing is left).
  const x402 = await call('PATCH', '/v1/billing/overage-method', { base, token, body: { overage_method: 'x402' } });
  expect(x402.body).toEqual({ overage_method: 'x402' });
  expect((await call('PATCH', '/v1/billing/overage-method', { base, token, body: { method: 'credits' } })).body).toEqual({ overage_method: 'credits' });
  for (const body of [{}, { method: 'card' }, { method: 'credits', overage_method: 'x402' }]) {
    expect((await call('PATCH', '/v1/billing/overage-method', { base, token, body })).status).toBe(400);
  }
  expect((await call('GET', '/v1/billing/credits/transactions?page=1&offset=5', { base, token })).status).toBe(400);
});

test('quotas off (the shared stack): nothing counted, no quota headers, and the summary says it is not metered', async () => {
  const a = await signup('quota-off');
  const vault = await call('POST', '/v1/vaults', { token: a.token, body: { name: 'unmetered' } });
  const put = await call('PUT', `/v1/vaults/${vault.body.id}/secrets/k`, { token: a.token, body: { value: 'v', type: 'api_key' } });
  expect(put.status).toBe(201);
  expect(put.headers.get('x-ratelimit-requests-limit')).toBeNull();
  const usage = await call('GET', '/v1/billing/usage', { token: a.token });
  expect(usage.status).toBe(200);
  expect(usage.body).toMatchObject({ billing_tier: 'free', free_tier_limit: 1000, metered: false, current_month: { total_requests: 0 } });
});
