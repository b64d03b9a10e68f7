// Setting an organization's plan (§4.14, reference adminSetBillingTier): platform operators
// (billing-operator@ops.test in the test stack, see test/helpers/global-setup.ts) set a tier; a
// paid tier lasts duration_days (default 365) and counts as free once its period has ended;
// free clears the period. The tier in force drives the resource caps (free: 3 vaults) and the
// plan features (CMEK: Business and up).
import { randomBytes, randomUUID } from 'node:crypto';
import { call, closeDb, db, signup, type Account, operatorAccount } from '../helpers/api.ts';
import { registerAgent, agentJwt, auditFor } from '../helpers/agent-fixtures.ts';
import { isProblem, newVault, rnd } from '../helpers/vault-fixtures.ts';

const OPERATOR_EMAIL = 'billing-operator@ops.test';
const DAY_MS = 86_400_000;

let operator: Account;


const tierUrl = (orgId: string) => `/v1/admin/orgs/${orgId}/billing-tier`;
const setTier = (orgId: string, body: unknown, token = operator.token) => call('PUT', tierUrl(orgId), { token, body });
const stored = async (orgId: string) =>
  (await db().query<{ billing_tier: string; billing_period_end: Date | null }>('SELECT billing_tier, billing_period_end FROM organizations WHERE id = $1', [orgId])).rows[0]!;
const createVault = (a: Account) => call('POST', '/v1/vaults', { token: a.token, body: { name: rnd('vault') } });
const enableCmek = (a: Account, vaultId: string) =>
  call('POST', `/v1/vaults/${vaultId}/cmek`, { token: a.token, body: { fingerprint: randomBytes(32).toString('hex') } });

/** A period end about `days` from now (the database's clock and ours agree to a minute). */
const expectEndIn = (iso: string, days: number) => {
  expect(Math.abs(new Date(iso).getTime() - (Date.now() + days * DAY_MS))).toBeLessThan(60_000);
};

afterAll(closeDb);
beforeAll(async () => {
  operator = await operatorAccount(OPERATOR_EMAIL);
});

test('an operator lifts an organization to business: the vault cap and the CMEK refusal of free no longer apply', async () => {
  const owner = await signup('billing-up');
  const vaults = [await newVault(owner), await newVault(owner), await newVault(owner)];
  const fourth = await createVault(owner);
  isProblem(fourth, 403, 'resource_limit_exceeded');
  expect(fourth.body).toMatchObject({ resource: 'vaults', limit: 3, used: 3, tier: 'free' });
  isProblem(await enableCmek(owner, vaults[0]!), 403, 'plan_feature_unavailable');

  const r = await setTier(owner.orgId, { tier: 'business' });
  expect(r.status).toBe(200);
  expect(Object.keys(r.body).sort()).toEqual(['org_id', 'period_end', 'tier']);
  expect(r.body).toMatchObject({ org_id: owner.orgId, tier: 'business' });
  expectEndIn(r.body.period_end, 365);
  const row = await stored(owner.orgId);
  expect(row.billing_tier).toBe('business');
  expect(row.billing_period_end!.toISOString()).toBe(r.body.period_end);

  expect((await createVault(owner)).status).toBe(201);
  const cmek = await enableCmek(owner, vaults[0]!);
  expect(cmek.status).toBe(200);
  expect(cmek.body.cmek_enabled).toBe(true);
});

test('duration_days sets the period; once it has ended the organization counts as free until a tier is set again', async () => {
  const owner = await signup('billing-expiry');
  const r = await setTier(owner.orgId, { tier: 'business', duration_days: 30 });
  expect(r.status).toBe(200);
  expectEndIn(r.body.period_end, 30);
  const vaults: string[] = [];
  for (let i = 0; i < 4; i++) vaults.push(await newVault(owner));
  expect((await enableCmek(owner, vaults[0]!)).status).toBe(200);

  await db().query("UPDATE organizations SET billing_period_end = now() - interval '1 second' WHERE id = $1", [owner.orgId]);
  const fifth = await createVault(owner);
  isProblem(fifth, 403, 'resource_limit_exceeded');
  expect(fifth.body).toMatchObject({ resource: 'vaults', limit: 3, used: 4, tier: 'free' });
  const cmek = await enableCmek(owner, vaults[1]!);
  isProblem(cmek, 403, 'plan_feature_unavailable');
  expect(cmek.body.tier).toBe('free');
  // The export shows the tier in force, not the lapsed grant.
  const exported = await call('POST', '/v1/auth/export-data', { token: owner.token });
  expect(exported.status).toBe(200);
  expect(exported.body.organization).toMatchObject({ id: owner.orgId, billing_tier: 'free' });
  expect((await stored(owner.orgId)).billing_tier).toBe('business'); // the grant itself is kept

  // Granted again: a new period from now.
  const again = await setTier(owner.orgId, { tier: 'business', duration_days: 1 });
  expect(again.status).toBe(200);
  expectEndIn(again.body.period_end, 1);
  expect((await createVault(owner)).status).toBe(201);
});

test('back to free clears the period; team and enterprise are accepted; a tier set without a period (NULL) never ends', async () => {
  const owner = await signup('billing-free');
  const pro = await setTier(owner.orgId, { tier: 'pro', duration_days: 90 });
  expect(pro.status).toBe(200);
  expectEndIn(pro.body.period_end, 90);

  const free = await setTier(owner.orgId, { tier: 'free' });
  expect(free.status).toBe(200);
  expect(free.body).toEqual({ org_id: owner.orgId, tier: 'free' });
  expect(await stored(owner.orgId)).toEqual({ billing_tier: 'free', billing_period_end: null });

  for (const tier of ['team', 'enterprise']) {
    const r = await setTier(owner.orgId, { tier, duration_days: 3650 });
    expect({ status: r.status, tier: r.body.tier }).toEqual({ status: 200, tier });
    expectEndIn(r.body.period_end, 3650);
  }
  // Tiers set before periods existed have none: they last (the vault cap of business does not apply).
  await db().query("UPDATE organizations SET billing_tier = 'business', billing_period_end = NULL WHERE id = $1", [owner.orgId]);
  for (let i = 0; i < 4; i++) await newVault(owner);
});

test('bad input is a 400 naming the field, and nothing changes', async () => {
  const owner = await signup('billing-bad');
  expect((await setTier(owner.orgId, { tier: 'pro', duration_days: 10 })).status).toBe(200);
  const before = await stored(owner.orgId);
  const cases: [unknown, string][] = [
    [{}, 'tier'],
    [{ tier: 'gold' }, 'tier'],
    [{ tier: 'Business' }, 'tier'],
    [{ tier: 5 }, 'tier'],
    [{ tier: null }, 'tier'],
    [{ tier: 'pro', duration_days: 0 }, 'duration_days'],
    [{ tier: 'pro', duration_days: 3651 }, 'duration_days'],
    [{ tier: 'pro', duration_days: 1.5 }, 'duration_days'],
    [{ tier: 'pro', duration_days: '30' }, 'duration_days'],
    [{ tier: 'pro', duration_days: null }, 'duration_days'],
    [{ tier: 'free', duration_days: 30 }, 'duration_days'],
  ];
  for (const [body, field] of cases) {
    const r = await setTier(owner.orgId, body);
    expect({ body, status: r.status, field: r.body.errors?.[0]?.field }).toEqual({ body, status: 400, field });
    expect(r.body.detail).toContain(field);
  }
  isProblem(await setTier(owner.orgId, ['tier', 'pro']), 400);
  isProblem(await call('PUT', tierUrl(owner.orgId), { token: operator.token }), 400);
  expect(await stored(owner.orgId)).toEqual(before);
  expect(await auditFor(owner, 'admin.billing_tier_set', owner.orgId)).toHaveLength(1);
});

test('only platform operators: an owner (of any organization) and an agent get 403, no token 401; a malformed body is 400 for anyone; nothing changes', async () => {
  const owner = await signup('billing-owner');
  const agentToken = await agentJwt(await registerAgent(owner));
  for (const body of [{ tier: 'enterprise' }, { tier: 'pro', duration_days: 30 }, { tier: 'free' }]) {
    isProblem(await setTier(owner.orgId, body, owner.token), 403);
    isProblem(await setTier(operator.orgId, body, owner.token), 403);
    isProblem(await setTier(randomUUID(), body, owner.token), 403);
    isProblem(await setTier(owner.orgId, body, agentToken), 403);
  }
  // The body's rules are public (the OpenAPI document): checking them first tells nobody anything.
  for (const body of [{ tier: 'gold' }, {}, { tier: 'pro', duration_days: -1 }]) isProblem(await setTier(owner.orgId, body, owner.token), 400);
  isProblem(await call('PUT', tierUrl(owner.orgId), { body: { tier: 'enterprise' } }), 401);
  expect(await stored(owner.orgId)).toEqual({ billing_tier: 'free', billing_period_end: null });
  expect(await auditFor(owner, 'admin.billing_tier_set', owner.orgId)).toEqual([]);
});

test('an unknown organization is 404', async () => {
  isProblem(await setTier(randomUUID(), { tier: 'pro' }), 404);
  isProblem(await setTier('not-an-org', { tier: 'pro' }), 404);
});

test("the change is audited in the organization's own log, with the operator as actor", async () => {
  const owner = await signup('billing-audit');
  const first = await setTier(owner.orgId, { tier: 'business', duration_days: 90 });
  expect(first.status).toBe(200);
  await db().query("UPDATE organizations SET billing_period_end = now() - interval '1 second' WHERE id = $1", [owner.orgId]);
  expect((await setTier(owner.orgId, { tier: 'free' })).status).toBe(200);

  const events = await auditFor(owner, 'admin.billing_tier_set', owner.orgId);
  expect(events).toHaveLength(2);
  const [second, firstEvent] = events; // newest first
  expect(firstEvent).toMatchObject({
    actor_type: 'user', actor_id: operator.userId, org_id: owner.orgId, resource_type: 'organization', resource_id: owner.orgId,
  });
  expect(firstEvent.details).toMatchObject({
    org_id: owner.orgId, tier: 'business', previous_tier: 'free', period_end: first.body.period_end, previous_period_end: null, duration_days: 90,
  });
  // The business grant had ended: the tier in force before this change was free.
  expect(second.details).toMatchObject({ org_id: owner.orgId, tier: 'free', previous_tier: 'free', period_end: null });
  expect(second.details.previous_period_end).toEqual(expect.any(String));
  expect(second.details.duration_days).toBeUndefined();
  const verify = await call('GET', '/v1/audit/verify', { token: owner.token });
  expect(verify.status).toBe(200);
  expect(verify.body.chain_valid).toBe(true);
});
