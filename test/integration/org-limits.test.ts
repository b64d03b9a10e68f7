// An organization's limits as a platform operator overrides them (issue 34 §5; reference
// adminGetOrgLimits / adminUpdateOrgLimits): caps on vaults (and the other resources), the monthly
// request quota (free_tier_override) and sponsorship, with an optional end. Operators only; a PUT
// replaces the whole override; bad input changes nothing. limits-operator@ops.test is an operator
// in the test stack (test/helpers/global-setup.ts). The subscription summary shows the caps in
// force. The quota itself, enforced, is in request-quotas.test.ts (a stack with REQUEST_QUOTAS=on).
import { randomUUID } from 'node:crypto';
import { call, closeDb, db, signup, type Account, operatorAccount } from '../helpers/api.ts';
import { auditFor } from '../helpers/agent-fixtures.ts';
import { isProblem, newVault, rnd } from '../helpers/vault-fixtures.ts';

let operator: Account;
const limitsUrl = (orgId: string) => `/v1/admin/orgs/${orgId}/limits`;
const putLimits = (orgId: string, body: unknown, token = operator.token) => call('PUT', limitsUrl(orgId), { token, body });
const getLimits = (orgId: string, token = operator.token) => call('GET', limitsUrl(orgId), { token });
const createVault = (a: Account) => call('POST', '/v1/vaults', { token: a.token, body: { name: rnd('vault') } });
const storedOverride = async (orgId: string) => (await db().query('SELECT * FROM org_limit_overrides WHERE org_id = $1', [orgId])).rows[0];

beforeAll(async () => { operator = await operatorAccount('limits-operator@ops.test'); });
afterAll(closeDb);

test('none set: the tier figures apply; an operator raises the vault cap of a free organization, and a later PUT without it puts the tier cap back', async () => {
  const owner = await signup('limits-caps');
  const none = await getLimits(owner.orgId);
  expect(none.status).toBe(200);
  expect(none.body).toEqual({ org_id: owner.orgId, is_sponsored: false, in_force: false, tier: 'free', request_quota: 1000 });

  for (let i = 0; i < 3; i++) await newVault(owner);
  isProblem(await createVault(owner), 403, 'resource_limit_exceeded');

  const raised = await putLimits(owner.orgId, { max_vaults: 5, max_secrets: 80 });
  expect(raised.status).toBe(200);
  expect(raised.body).toEqual({
    org_id: owner.orgId, is_sponsored: false, max_vaults: 5, max_secrets: 80, in_force: true, tier: 'free', request_quota: 1000,
  });
  expect((await createVault(owner)).status).toBe(201);
  expect((await createVault(owner)).status).toBe(201);
  const sixth = await createVault(owner);
  isProblem(sixth, 403, 'resource_limit_exceeded');
  expect(sixth.body).toMatchObject({ resource: 'vaults', limit: 5, used: 5 });
  expect((await getLimits(owner.orgId)).body).toEqual(raised.body);

  // The owner sees who changed the organization's limits, and what they were before.
  const [event] = await auditFor(owner, 'admin.org_limits_set', owner.orgId);
  expect(event).toMatchObject({ actor_id: operator.userId });
  expect(event.details).toMatchObject({ limits: { max_vaults: 5, max_secrets: 80, request_quota: null }, previous_limits: null });

  // A PUT is the whole override: without max_vaults the free tier's 3 apply again.
  const replaced = await putLimits(owner.orgId, { max_agents: 4 });
  expect(replaced.body).toEqual({ org_id: owner.orgId, is_sponsored: false, max_agents: 4, in_force: true, tier: 'free', request_quota: 1000 });
  const refused = await createVault(owner);
  isProblem(refused, 403, 'resource_limit_exceeded');
  expect(refused.body).toMatchObject({ limit: 3, used: 5 });
});

test('the request quota: an override replaces the tier quota in the usage summary, sponsorship removes it', async () => {
  const owner = await signup('limits-quota');
  const quota = await putLimits(owner.orgId, { free_tier_override: 5000 });
  expect(quota.body).toMatchObject({ free_tier_override: 5000, request_quota: 5000, in_force: true });
  expect((await call('GET', '/v1/billing/usage', { token: owner.token })).body).toMatchObject({ billing_tier: 'free', free_tier_limit: 5000 });

  const sponsored = await putLimits(owner.orgId, { free_tier_override: 5000, is_sponsored: true });
  expect(sponsored.body).toMatchObject({ is_sponsored: true, free_tier_override: 5000 });
  expect(sponsored.body.request_quota).toBeUndefined();
  const usage = await call('GET', '/v1/billing/usage', { token: owner.token });
  expect(usage.body.billing_tier).toBe('free');
  expect(usage.body.free_tier_limit).toBeUndefined();
});

test('an override with an end: in force until expires_at, then the tier figures apply again', async () => {
  const owner = await signup('limits-expiry');
  for (let i = 0; i < 3; i++) await newVault(owner);
  const until = new Date(Date.now() + 3_600_000).toISOString();
  const r = await putLimits(owner.orgId, { max_vaults: 10, free_tier_override: 200, expires_at: until });
  expect(r.body).toMatchObject({ max_vaults: 10, expires_at: until, in_force: true, request_quota: 200 });
  expect((await createVault(owner)).status).toBe(201);

  // Its end reached (moved back in the database rather than waiting an hour).
  await db().query("UPDATE org_limit_overrides SET expires_at = now() - interval '1 second' WHERE org_id = $1", [owner.orgId]);
  const ended = await getLimits(owner.orgId);
  expect(ended.body).toMatchObject({ max_vaults: 10, in_force: false, request_quota: 1000 });
  isProblem(await createVault(owner), 403, 'resource_limit_exceeded');
  expect((await call('GET', '/v1/billing/usage', { token: owner.token })).body.free_tier_limit).toBe(1000);
});

test('operators only; an unknown organization is 404; bad input is a 400 that changes nothing', async () => {
  const owner = await signup('limits-refused');
  isProblem(await putLimits(owner.orgId, { max_vaults: 100 }, owner.token), 403);
  isProblem(await getLimits(owner.orgId, owner.token), 403);
  isProblem(await putLimits(randomUUID(), { max_vaults: 1 }), 404);
  isProblem(await getLimits(randomUUID()), 404);
  isProblem(await getLimits('not-an-org'), 404);

  for (const body of [
    { max_vaults: -1 }, { max_vaults: 1.5 }, { free_tier_override: '100' }, { is_sponsored: 'yes' }, { unknown_limit: 1 },
    { expires_at: 'tomorrow' }, { expires_at: new Date(Date.now() - 60_000).toISOString() }, [],
  ]) {
    isProblem(await putLimits(owner.orgId, body), 400);
  }
  expect(await storedOverride(owner.orgId)).toBeUndefined();
  expect((await getLimits(owner.orgId)).body).toMatchObject({ in_force: false, request_quota: 1000 });
});

test('GET /v1/billing/subscription: the plan and its state, credits, overage method, and usage against each cap (the override in force)', async () => {
  const owner = await signup('limits-subscription');
  await newVault(owner);
  const sub = () => call('GET', '/v1/billing/subscription', { token: owner.token });
  const free = await sub();
  expect(free.status).toBe(200);
  expect(free.body).toEqual({
    tier: 'free', status: 'none', credit_balance_cents: 0, credit_balance_usd: '0.00', overage_method: 'credits',
    usage: {
      requests: { used: 0, limit: 1000 }, secrets: { used: 0, limit: 50 }, agents: { used: 0, limit: 2 }, vaults: { used: 1, limit: 3 },
      team_members: { used: 1 }, intent_transactions: { used: 0 }, wallets: { used: 0 }, shares: { used: 0 },
    },
  });

  const tier = await call('PUT', `/v1/admin/orgs/${owner.orgId}/billing-tier`, { token: operator.token, body: { tier: 'business', duration_days: 30 } });
  await putLimits(owner.orgId, { max_agents: 7 });
  const business = await sub();
  expect(business.body).toMatchObject({ tier: 'business', status: 'active', period_end: tier.body.period_end });
  expect(business.body.usage.vaults).toEqual({ used: 1 }); // business: no vault cap
  expect(business.body.usage.agents).toEqual({ used: 0, limit: 7 });
  expect(business.body.usage.requests).toEqual({ used: 0, limit: 1_000_000 });

  await db().query("UPDATE organizations SET billing_period_end = now() - interval '1 second' WHERE id = $1", [owner.orgId]);
  expect((await sub()).body).toMatchObject({ tier: 'free', status: 'expired', usage: { vaults: { used: 1, limit: 3 }, agents: { limit: 7 } } });
});
