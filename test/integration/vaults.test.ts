// Vaults (§4.4): records, reserved names, tenancy, tier cap, roles; and the key backend health.
import { call, closeDb, db, signup, type Account, joinAsMember } from '../helpers/api.ts';
import { isProblem, newVault, secretUrl, putOk, listAll } from '../helpers/vault-fixtures.ts';

afterAll(closeDb);

describe('vaults', () => {
  let owner: Account;
  beforeAll(async () => { owner = await signup('vaults'); });

  test('create, list, get and delete a vault; its secrets go with it', async () => {
    const created = await call('POST', '/v1/vaults', { token: owner.token, body: { name: 'Production', description: 'prod creds' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(expect.objectContaining({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Production', description: 'prod creds',
      created_by: owner.userId, created_by_type: 'user', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), cmek_enabled: false,
    }));
    const id = created.body.id;

    const list = await call('GET', '/v1/vaults', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.vaults).toEqual(expect.arrayContaining([expect.objectContaining({ id, name: 'Production' })]));
    expect(list.body.vaults.some((v: any) => v.name.startsWith('__'))).toBe(false);

    const one = await call('GET', `/v1/vaults/${id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created.body);

    await putOk(owner, id, 'db/password', 'hunter2-vault-delete');
    expect((await call('DELETE', `/v1/vaults/${id}`, { token: owner.token })).status).toBe(204);
    isProblem(await call('GET', `/v1/vaults/${id}`, { token: owner.token }), 404);
    // Crypto-shredded: the row no longer holds (or points to) its key.
    expect((await db().query('SELECT key_ref FROM vaults WHERE id = $1', [id])).rows[0].key_ref).toBe('destroyed');
    isProblem(await call('GET', secretUrl(id, 'db/password'), { token: owner.token }), 404);
    isProblem(await call('GET', `/v1/vaults/${id}/secrets`, { token: owner.token }), 404);
    isProblem(await call('PUT', secretUrl(id, 'db/other'), { token: owner.token, body: { value: 'x' } }), 404);
    isProblem(await call('DELETE', `/v1/vaults/${id}`, { token: owner.token }), 404);
    const after = await call('GET', '/v1/vaults', { token: owner.token });
    expect(after.body.vaults.some((v: any) => v.id === id)).toBe(false);
  });

  test('reserved and empty names are a 400', async () => {
    for (const name of ['__agent-keys', '__system', '__']) {
      const r = await call('POST', '/v1/vaults', { token: owner.token, body: { name } });
      isProblem(r, 400);
      expect(r.body.detail).toContain('name');
    }
    for (const name of ['', '   ']) {
      const r = await call('POST', '/v1/vaults', { token: owner.token, body: { name } });
      isProblem(r, 400);
      expect(r.body.detail).toContain('name');
    }
    isProblem(await call('POST', '/v1/vaults', { token: owner.token, body: {} }), 400);
  });

  test("another organization's vault, a garbage id and no token", async () => {
    const id = await newVault(owner);
    await putOk(owner, id, 'shared/one', 'cross-org-value');
    const other = await signup('vaults-other');
    const asOther = (method: string, p: string, body?: unknown) => call(method, p, { token: other.token, body });
    isProblem(await asOther('GET', `/v1/vaults/${id}`), 404);
    isProblem(await asOther('DELETE', `/v1/vaults/${id}`), 404);
    isProblem(await asOther('GET', `/v1/vaults/${id}/secrets`), 404);
    isProblem(await asOther('GET', secretUrl(id, 'shared/one')), 404);
    isProblem(await asOther('PUT', secretUrl(id, 'shared/one'), { value: 'overwrite' }), 404);
    isProblem(await asOther('DELETE', secretUrl(id, 'shared/one')), 404);
    isProblem(await asOther('GET', `/v1/vaults/${id}/secret-versions/shared/one`), 404);
    isProblem(await asOther('GET', `/v1/vaults/${id}/secret-version/shared/one/1`), 404);
    expect((await asOther('GET', '/v1/vaults')).body.vaults).toEqual([]);
    // Untouched for its owner.
    const mine = await call('GET', secretUrl(id, 'shared/one'), { token: owner.token });
    expect(mine.status).toBe(200);
    expect(mine.body.value).toBe('cross-org-value');
    expect(mine.body.version).toBe(1);

    for (const garbage of ['not-a-uuid', '00000000-0000-0000-0000-000000000000', "x'%20OR%20'1'='1"]) {
      isProblem(await call('GET', `/v1/vaults/${garbage}`, { token: owner.token }), 404);
      isProblem(await call('DELETE', `/v1/vaults/${garbage}`, { token: owner.token }), 404);
      isProblem(await call('GET', secretUrl(garbage, 'a/b'), { token: owner.token }), 404);
      isProblem(await call('PUT', secretUrl(garbage, 'a/b'), { token: owner.token, body: { value: 'v' } }), 404);
    }

    isProblem(await call('GET', '/v1/vaults'), 401);
    isProblem(await call('POST', '/v1/vaults', { body: { name: 'anon' } }), 401);
    isProblem(await call('GET', `/v1/vaults/${id}`), 401);
    isProblem(await call('DELETE', `/v1/vaults/${id}`), 401);
    isProblem(await call('GET', secretUrl(id, 'shared/one')), 401);
    isProblem(await call('PUT', secretUrl(id, 'shared/one'), { body: { value: 'v' } }), 401);
    isProblem(await call('GET', `/v1/vaults/${id}/secrets`), 401);
    isProblem(await call('GET', secretUrl(id, 'shared/one'), { token: 'garbage-token' }), 401);
    expect((await call('DELETE', `/v1/vaults/${id}`, { token: owner.token })).status).toBe(204);
  });

  test('the free tier allows 3 vaults; deleting one frees a slot', async () => {
    const a = await signup('vault-cap');
    const ids = [await newVault(a), await newVault(a), await newVault(a)];
    const fourth = await call('POST', '/v1/vaults', { token: a.token, body: { name: 'one too many' } });
    isProblem(fourth, 403, 'resource_limit_exceeded');
    expect(fourth.body).toEqual(expect.objectContaining({ resource: 'vaults', limit: 3, used: 3, tier: 'free' }));
    expect((await call('GET', '/v1/vaults', { token: a.token })).body.vaults).toHaveLength(3);
    expect((await call('DELETE', `/v1/vaults/${ids[0]}`, { token: a.token })).status).toBe(204);
    const again = await call('POST', '/v1/vaults', { token: a.token, body: { name: 'fits again' } });
    expect(again.status).toBe(201);
    isProblem(await call('POST', '/v1/vaults', { token: a.token, body: { name: 'full again' } }), 403, 'resource_limit_exceeded');
  });

  test('a member sees neither vaults nor secrets without a grant, but manages a vault they created', async () => {
    const boss = await signup('vault-boss');
    const ownersVault = await newVault(boss, 'owner-only');
    await putOk(boss, ownersVault, 'team/db', 'owner-only-value');
    const member = await joinAsMember(boss, 'vault-member');
    expect(member.orgId).toBe(boss.orgId);

    const list = await call('GET', '/v1/vaults', { token: member.token });
    expect(list.status).toBe(200);
    expect(list.body.vaults).toEqual([]);
    isProblem(await call('GET', `/v1/vaults/${ownersVault}`, { token: member.token }), 404);
    isProblem(await call('DELETE', `/v1/vaults/${ownersVault}`, { token: member.token }), 404);
    isProblem(await call('GET', `/v1/vaults/${ownersVault}/secrets`, { token: member.token }), 404);
    const read = await call('GET', secretUrl(ownersVault, 'team/db'), { token: member.token });
    expect([403, 404]).toContain(read.status);
    expect(read.text).not.toContain('owner-only-value');
    const write = await call('PUT', secretUrl(ownersVault, 'team/db'), { token: member.token, body: { value: 'member-overwrite' } });
    expect([403, 404]).toContain(write.status);
    expect((await call('GET', `/v1/vaults/${ownersVault}`, { token: boss.token })).status).toBe(200);
    expect((await call('GET', secretUrl(ownersVault, 'team/db'), { token: boss.token })).body).toEqual(expect.objectContaining({ value: 'owner-only-value', version: 1 }));

    // Creator rights: the member's own vault.
    const created = await call('POST', '/v1/vaults', { token: member.token, body: { name: 'member-vault' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(expect.objectContaining({ created_by: member.userId, created_by_type: 'user' }));
    const mv = created.body.id;
    expect((await call('GET', '/v1/vaults', { token: member.token })).body.vaults.map((v: any) => v.id)).toEqual([mv]);
    expect((await call('GET', `/v1/vaults/${mv}`, { token: member.token })).status).toBe(200);
    const w = await putOk(member, mv, 'mine/token', 'member-secret-1');
    expect(w.body.version).toBe(1);
    expect((await call('GET', secretUrl(mv, 'mine/token'), { token: member.token })).body.value).toBe('member-secret-1');
    expect(await listAll(member, mv)).toEqual(['mine/token']);
    expect((await call('DELETE', secretUrl(mv, 'mine/token'), { token: member.token })).status).toBe(204);
    // The owner (a manager) sees the member's vault too.
    expect((await call('GET', `/v1/vaults/${mv}`, { token: boss.token })).status).toBe(200);
    expect((await call('DELETE', `/v1/vaults/${mv}`, { token: member.token })).status).toBe(204);
    isProblem(await call('GET', `/v1/vaults/${mv}`, { token: member.token }), 404);
  });
});

describe('key backend health', () => {
  test('GET /v1/health/hsm is public and reports the backend', async () => {
    const r = await call('GET', '/v1/health/hsm');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok', backend: expect.stringMatching(/^(local|pkcs11)$/) });
  });
});
