// Platform settings and the account list (spec §4.14 admin; reference adminListSettings /
// adminUpdateSetting / adminDeleteSetting / adminListUsers): operators only; a setting is a string
// by key, set, replaced and deleted with the change in the operator's audit log; the account list
// shows each account's organization, plan and overrides. settings-operator@ops.test is an
// operator in the test stack (test/helpers/global-setup.ts).
import { randomUUID } from 'node:crypto';
import { call, closeDb, signup, type Account, operatorAccount } from '../helpers/api.ts';
import { isProblem } from '../helpers/vault-fixtures.ts';

let operator: Account;
beforeAll(async () => { operator = await operatorAccount('settings-operator@ops.test'); });
afterAll(closeDb);

const setting = (key: string) => `/v1/admin/settings/${encodeURIComponent(key)}`;

test('an operator sets, replaces, lists and deletes a setting; each change is audited; others get 403', async () => {
  const key = `x402.pay_to.${randomUUID().slice(0, 8)}`;
  const first = await call('PUT', setting(key), { token: operator.token, body: { value: '0x1111111111111111111111111111111111111111' } });
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ key, value: '0x1111111111111111111111111111111111111111', updated_by: operator.userId });
  const second = await call('PUT', setting(key), { token: operator.token, body: { value: '' } });
  expect(second.body.value).toBe('');
  const list = await call('GET', '/v1/admin/settings', { token: operator.token });
  expect(list.status).toBe(200);
  expect(list.body.settings).toContainEqual(expect.objectContaining({ key, value: '' }));

  const audit = await call('GET', `/v1/audit/events?action=admin.setting_set&limit=100`, { token: operator.token });
  const mine = audit.body.events.filter((e: { resource_id: string }) => e.resource_id === key);
  expect(mine.map((e: { details: { previous: string | null } }) => e.details.previous).sort()).toEqual(['0x1111111111111111111111111111111111111111', null].sort());

  expect((await call('DELETE', setting(key), { token: operator.token })).status).toBe(204);
  isProblem(await call('DELETE', setting(key), { token: operator.token }), 404);
  expect((await call('GET', '/v1/admin/settings', { token: operator.token })).body.settings.map((s: { key: string }) => s.key)).not.toContain(key);

  const someone = await signup('settings-other');
  isProblem(await call('GET', '/v1/admin/settings', { token: someone.token }), 403);
  isProblem(await call('PUT', setting('anything'), { token: someone.token, body: { value: 'x' } }), 403);
  isProblem(await call('DELETE', setting('anything'), { token: someone.token }), 403);
});

test('bad keys and values are refused and change nothing', async () => {
  isProblem(await call('PUT', setting('has space'), { token: operator.token, body: { value: 'x' } }), 404);
  isProblem(await call('PUT', setting('.leading-dot'), { token: operator.token, body: { value: 'x' } }), 404);
  isProblem(await call('PUT', setting('k'.repeat(101)), { token: operator.token, body: { value: 'x' } }), 404);
  for (const body of [{}, { value: 5 }, { value: null }, { value: 'v'.repeat(4097) }]) {
    isProblem(await call('PUT', setting('refused.key'), { token: operator.token, body }), 400);
  }
  const list = await call('GET', '/v1/admin/settings', { token: operator.token });
  expect(list.body.settings.map((s: { key: string }) => s.key)).not.toContain('refused.key');
  isProblem(await call('DELETE', setting('refused.key'), { token: operator.token }), 404);
});

test('the account list: each account with its organization, plan in force and overrides; search by e-mail; operators only', async () => {
  const a = await signup(`admin-list-${randomUUID().slice(0, 6)}`);
  await call('PUT', `/v1/admin/orgs/${a.orgId}/limits`, { token: (await operatorAccount('limits-operator@ops.test')).token, body: { free_tier_override: 777 } });
  const r = await call('GET', `/v1/admin/users?search=${encodeURIComponent(a.email.toUpperCase())}`, { token: operator.token });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
  expect(r.body.users).toEqual([expect.objectContaining({
    id: a.userId, email: a.email, role: 'owner', auth_method: 'password', org_id: a.orgId, billing_tier: 'free',
    free_tier_override: 777, is_sponsored: false, current_month_requests: 0,
  })]);
  const page = await call('GET', '/v1/admin/users?limit=2', { token: operator.token });
  expect(page.body.users).toHaveLength(2);
  expect(page.body.total).toBeGreaterThanOrEqual(2);
  isProblem(await call('GET', '/v1/admin/users?limit=0', { token: operator.token }), 400);
  isProblem(await call('GET', '/v1/admin/users', { token: a.token }), 403);
});

test('an operator deletes an account: its credentials die at once, a second delete is 404; never the operator\'s own; others get 403', async () => {
  const doomed = await signup('admin-delete');
  const someone = await signup('admin-delete-other');
  isProblem(await call('DELETE', `/v1/admin/users/${doomed.userId}`, { token: someone.token }), 403);
  expect((await call('GET', '/v1/auth/me', { token: doomed.token })).status).toBe(200);

  expect((await call('DELETE', `/v1/admin/users/${doomed.userId}`, { token: operator.token })).status).toBe(204);
  expect((await call('GET', '/v1/auth/me', { token: doomed.token })).status).toBe(401);
  isProblem(await call('DELETE', `/v1/admin/users/${doomed.userId}`, { token: operator.token }), 404);
  isProblem(await call('DELETE', `/v1/admin/users/${randomUUID()}`, { token: operator.token }), 404);
  isProblem(await call('DELETE', `/v1/admin/users/${operator.userId}`, { token: operator.token }), 409);
});
