// Audit fails closed (ARCHITECTURE.md): when the audit record of a secret read cannot be
// written, the value is not returned.
import { call, signup, db, closeDb } from '../helpers/api.ts';

afterAll(async () => {
  // Whatever happened in the test, the audit table must be back for the rest of the run.
  await db().query('ALTER TABLE IF EXISTS audit_events_offline RENAME TO audit_events');
  await closeDb();
});

test('a secret read whose audit record cannot be written returns no value', async () => {
  const owner = await signup('fail-closed');
  const vault = (await call('POST', '/v1/vaults', { token: owner.token, body: { name: 'fc' } })).body.id;
  const value = `FAIL-CLOSED-${Date.now()}`;
  expect((await call('PUT', `/v1/vaults/${vault}/secrets/a/b`, { token: owner.token, body: { value } })).status).toBe(201);
  expect((await call('GET', `/v1/vaults/${vault}/secrets/a/b`, { token: owner.token })).body.value).toBe(value);

  await db().query('ALTER TABLE audit_events RENAME TO audit_events_offline');
  const blind = await call('GET', `/v1/vaults/${vault}/secrets/a/b`, { token: owner.token });
  await db().query('ALTER TABLE audit_events_offline RENAME TO audit_events');

  expect(blind.status).toBe(503);
  expect(blind.text).not.toContain(value);
  expect(blind.body.detail).toMatch(/audit/i);
  // With the audit log back, reads work again.
  expect((await call('GET', `/v1/vaults/${vault}/secrets/a/b`, { token: owner.token })).body.value).toBe(value);
});
