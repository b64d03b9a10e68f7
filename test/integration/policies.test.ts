// Policies (§2.5, §4.4) over HTTP against the real stack: CRUD, validation, who may manage them,
// and their live effect on a member's access (no token refresh between a change and its effect).
import { randomUUID } from 'node:crypto';
import { call, closeDb, db, eventually, signup, type Account, type Res, joinAsMember } from '../helpers/api.ts';

afterAll(closeDb);


async function createVault(a: Account, name = 'pol-vault'): Promise<string> {
  const r = await call('POST', '/v1/vaults', { token: a.token, body: { name } });
  expect(r.status).toBe(201);
  return r.body.id;
}

async function putSecret(token: string, vaultId: string, path: string, value: string, type?: string): Promise<Res> {
  return call('PUT', `/v1/vaults/${vaultId}/secrets/${path}`, { token, body: { value, ...(type ? { type } : {}) } });
}

const readSecret = (token: string, vaultId: string, path: string) => call('GET', `/v1/vaults/${vaultId}/secrets/${path}`, { token });

type PolicyBody = {
  secret_path_pattern: string; principal_type: string; principal_id: string; permissions: string[];
  conditions?: unknown; expires_at?: string | null; effect?: 'allow' | 'deny';
};

async function createPolicy(token: string, vaultId: string, body: PolicyBody): Promise<any> {
  const r = await call('POST', `/v1/vaults/${vaultId}/policies`, { token, body });
  expect(r.status).toBe(201);
  return r.body;
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

describe('policy CRUD', () => {
  let owner: Account;
  let vaultId: string;
  beforeAll(async () => {
    owner = await signup('pol-crud');
    vaultId = await createVault(owner);
  });

  test('create (201), list, update permissions alone (200), delete (204, then 404)', async () => {
    const created = await call('POST', `/v1/vaults/${vaultId}/policies`, {
      token: owner.token,
      body: { secret_path_pattern: 'team/*', principal_type: 'user', principal_id: owner.userId, permissions: ['read'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(expect.objectContaining({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), vault_id: vaultId, secret_path_pattern: 'team/*', principal_type: 'user',
      principal_id: owner.userId, permissions: ['read'], conditions: {}, created_at: ISO,
    }));
    // Issue 8 §5: a policy without expiry omits `expires_at` (the reference types it optional, not nullable).
    expect(created.body).not.toHaveProperty('expires_at');
    const id: string = created.body.id;

    const list = await call('GET', `/v1/vaults/${vaultId}/policies`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.policies).toEqual([expect.objectContaining({ id, secret_path_pattern: 'team/*', permissions: ['read'] })]);

    const updated = await call('PUT', `/v1/vaults/${vaultId}/policies/${id}`, { token: owner.token, body: { permissions: ['read', 'write'] } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual(expect.objectContaining({
      id, vault_id: vaultId, secret_path_pattern: 'team/*', principal_type: 'user', principal_id: owner.userId,
      permissions: ['read', 'write'], conditions: {},
    }));
    expect(updated.body).not.toHaveProperty('expires_at'); // issue 8 §5, as above
    const after = await call('GET', `/v1/vaults/${vaultId}/policies`, { token: owner.token });
    expect(after.body.policies[0].permissions).toEqual(['read', 'write']);

    expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${id}`, { token: owner.token })).status).toBe(204);
    expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${id}`, { token: owner.token })).status).toBe(404);
    expect((await call('PUT', `/v1/vaults/${vaultId}/policies/${id}`, { token: owner.token, body: { permissions: ['read'] } })).status).toBe(404);
    expect((await call('GET', `/v1/vaults/${vaultId}/policies`, { token: owner.token })).body.policies).toEqual([]);
  });

  test('duplicate permissions collapse; an expiry and conditions are echoed back', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const p = await createPolicy(owner.token, vaultId, {
      secret_path_pattern: 'ops/**', principal_type: 'user', principal_id: owner.userId, permissions: ['read', 'read', 'write'],
      conditions: { ip_allowlist: ['127.0.0.0/8'] }, expires_at: expiresAt,
    });
    expect(p.permissions).toEqual(['read', 'write']);
    expect(p.conditions).toEqual({ ip_allowlist: ['127.0.0.0/8'] });
    expect(Date.parse(p.expires_at)).toBe(Date.parse(expiresAt));
    const cleared = await call('PUT', `/v1/vaults/${vaultId}/policies/${p.id}`, { token: owner.token, body: { expires_at: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('expires_at'); // cleared: omitted (issue 8 §5)
    expect(cleared.body.permissions).toEqual(['read', 'write']);
  });
});

describe('policy validation', () => {
  let owner: Account;
  let other: Account;
  let vaultId: string;
  let policyId: string;
  const base = () => ({ secret_path_pattern: 'team/*', principal_type: 'user', principal_id: owner.userId, permissions: ['read'] });
  const post = (body: unknown) => call('POST', `/v1/vaults/${vaultId}/policies`, { token: owner.token, body });

  beforeAll(async () => {
    owner = await signup('pol-valid');
    other = await signup('pol-valid-other');
    vaultId = await createVault(owner);
    policyId = (await createPolicy(owner.token, vaultId, base())).id;
  });

  test.each(['a//b', '..', 'a**', 'a/../b', '/team', 'team/'])('pattern %j is a 400 naming secret_path_pattern', async (pattern) => {
    const r = await post({ ...base(), secret_path_pattern: pattern });
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain('secret_path_pattern');
  });

  test('permissions must be known and non-empty', async () => {
    const unknown = await post({ ...base(), permissions: ['read', 'admin'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('permissions');
    expect((await post({ ...base(), permissions: [] })).status).toBe(400);
    expect((await post({ ...base(), permissions: 'read' })).status).toBe(400);
  });

  test('principal_type must be user or agent; principal_id must be a uuid', async () => {
    const robot = await post({ ...base(), principal_type: 'robot' });
    expect(robot.status).toBe(400);
    expect(robot.body.detail).toContain('principal_type');
    const notUuid = await post({ ...base(), principal_id: 'not-a-uuid' });
    expect(notUuid.status).toBe(400);
    expect(notUuid.body.detail).toContain('principal_id');
    // A well-formed id of nobody is refused as well.
    expect((await post({ ...base(), principal_id: randomUUID() })).status).toBe(400);
    expect((await post({ ...base(), principal_type: 'agent', principal_id: randomUUID() })).status).toBe(400);
  });

  test('a user or agent of another organization cannot be granted anything', async () => {
    const foreignUser = await post({ ...base(), principal_id: other.userId });
    expect(foreignUser.status).toBe(400);
    expect(foreignUser.body.detail).toContain('principal_id');
    const agent = await call('POST', '/v1/agents', { token: other.token, body: { name: 'foreign-bot' } });
    expect(agent.status).toBe(201);
    const foreignAgent = await post({ ...base(), principal_type: 'agent', principal_id: agent.body.agent_id });
    expect(foreignAgent.status).toBe(400);
    expect(foreignAgent.body.detail).toContain('principal_id');
    const rows = await db().query('SELECT 1 FROM policies WHERE vault_id = $1 AND principal_id = ANY($2::uuid[])', [vaultId, [other.userId, agent.body.agent_id]]);
    expect(rows.rowCount).toBe(0);
  });

  test('expires_at must be an ISO timestamp in the future', async () => {
    const past = await post({ ...base(), expires_at: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.detail).toContain('expires_at');
    expect((await post({ ...base(), expires_at: 'tomorrow' })).status).toBe(400);
    const putPast = await call('PUT', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: owner.token, body: { expires_at: '2020-01-01T00:00:00Z' } });
    expect(putPast.status).toBe(400);
  });

  test('conditions: unknown keys, bad CIDRs and bad time zones are 400s', async () => {
    const unknownKey = await post({ ...base(), conditions: { geo: 'EU' } });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.detail).toContain('conditions');
    for (const cidr of ['10.0.0.0/33', 'not-an-ip', '300.1.1.1/8', '']) {
      const r = await post({ ...base(), conditions: { ip_allowlist: [cidr] } });
      expect(r.status).toBe(400);
      expect(r.body.detail).toContain('ip_allowlist');
    }
    const tz = await post({ ...base(), conditions: { time_window: { start_hour: 9, end_hour: 17, timezone: 'Mars/Olympus_Mons' } } });
    expect(tz.status).toBe(400);
    expect(tz.body.detail).toContain('timezone');
    expect((await post({ ...base(), conditions: { time_window: { start_hour: 25, end_hour: 3 } } })).status).toBe(400);
    const putBad = await call('PUT', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: owner.token, body: { conditions: { ip_allowlist: ['nope'] } } });
    expect(putBad.status).toBe(400);
  });

  test('PUT with an empty body (or no body) is a 400; pattern and principal are not in the update schema', async () => {
    expect((await call('PUT', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: owner.token, body: {} })).status).toBe(400);
    expect((await call('PUT', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: owner.token })).status).toBe(400);
    expect((await call('PUT', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: owner.token, body: { permissions: [] } })).status).toBe(400);
    // Nothing changed.
    const list = await call('GET', `/v1/vaults/${vaultId}/policies`, { token: owner.token });
    const unchanged = list.body.policies.find((p: any) => p.id === policyId);
    expect(unchanged).toEqual(expect.objectContaining({ permissions: ['read'], conditions: {} }));
    expect(unchanged).not.toHaveProperty('expires_at'); // no expiry: omitted (issue 8 §5)
  });
});

describe('who may manage policies', () => {
  let owner: Account;
  let member: Account;
  let stranger: Account;
  let vaultId: string;
  let policyId: string;

  beforeAll(async () => {
    owner = await signup('pol-roles');
    member = await joinAsMember(owner, 'pol-member');
    stranger = await signup('pol-roles-stranger');
    vaultId = await createVault(owner);
  });

  test('a member who cannot see the vault gets 404 for everything', async () => {
    const body = { secret_path_pattern: '**', principal_type: 'user', principal_id: member.userId, permissions: ['read', 'write'] };
    expect((await call('POST', `/v1/vaults/${vaultId}/policies`, { token: member.token, body })).status).toBe(404);
    expect((await call('GET', `/v1/vaults/${vaultId}/policies`, { token: member.token })).status).toBe(404);
  });

  test('a member who can see the vault (through a read policy) gets 403', async () => {
    policyId = (await createPolicy(owner.token, vaultId, { secret_path_pattern: 'team/*', principal_type: 'user', principal_id: member.userId, permissions: ['read'] })).id;
    const body = { secret_path_pattern: '**', principal_type: 'user', principal_id: member.userId, permissions: ['read', 'write'] };
    const post = await call('POST', `/v1/vaults/${vaultId}/policies`, { token: member.token, body });
    expect(post.status).toBe(403);
    expect((await call('GET', `/v1/vaults/${vaultId}/policies`, { token: member.token })).status).toBe(403);
    expect((await call('PUT', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: member.token, body: { permissions: ['read', 'write'] } })).status).toBe(403);
    expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: member.token })).status).toBe(403);
    const list = await call('GET', `/v1/vaults/${vaultId}/policies`, { token: owner.token });
    expect(list.body.policies).toEqual([expect.objectContaining({ id: policyId, permissions: ['read'] })]);
  });

  test("another organization's vault and policy ids are 404s both ways", async () => {
    const body = { secret_path_pattern: '**', principal_type: 'user', principal_id: stranger.userId, permissions: ['read'] };
    expect((await call('POST', `/v1/vaults/${vaultId}/policies`, { token: stranger.token, body })).status).toBe(404);
    expect((await call('GET', `/v1/vaults/${vaultId}/policies`, { token: stranger.token })).status).toBe(404);
    expect((await call('PUT', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: stranger.token, body: { permissions: ['write'] } })).status).toBe(404);
    expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: stranger.token })).status).toBe(404);

    // The stranger's own policy id, addressed through the owner's vault, is not found either.
    const theirVault = await createVault(stranger, 'stranger-vault');
    const theirPolicy = await createPolicy(stranger.token, theirVault, body);
    expect((await call('PUT', `/v1/vaults/${vaultId}/policies/${theirPolicy.id}`, { token: owner.token, body: { permissions: ['write'] } })).status).toBe(404);
    expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${theirPolicy.id}`, { token: owner.token })).status).toBe(404);
    expect((await call('PUT', `/v1/vaults/${theirVault}/policies/${theirPolicy.id}`, { token: owner.token, body: { permissions: ['write'] } })).status).toBe(404);
    const theirs = await call('GET', `/v1/vaults/${theirVault}/policies`, { token: stranger.token });
    expect(theirs.body.policies).toEqual([expect.objectContaining({ id: theirPolicy.id, permissions: ['read'] })]);

    expect((await call('PUT', `/v1/vaults/${vaultId}/policies/not-a-uuid`, { token: owner.token, body: { permissions: ['read'] } })).status).toBe(404);
    expect((await call('GET', `/v1/vaults/${randomUUID()}/policies`, { token: owner.token })).status).toBe(404);
  });

  test('without a token every policy route is a 401', async () => {
    const body = { secret_path_pattern: '**', principal_type: 'user', principal_id: owner.userId, permissions: ['read'] };
    expect((await call('POST', `/v1/vaults/${vaultId}/policies`, { body })).status).toBe(401);
    expect((await call('GET', `/v1/vaults/${vaultId}/policies`)).status).toBe(401);
    expect((await call('PUT', `/v1/vaults/${vaultId}/policies/${policyId}`, { body: { permissions: ['read'] } })).status).toBe(401);
    expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${policyId}`)).status).toBe(401);
  });
});

describe("a policy's live effect on a member's access", () => {
  let owner: Account;
  let member: Account;
  let vaultId: string;
  const grant = (pattern: string, permissions: string[], extra: Partial<PolicyBody> = {}) =>
    createPolicy(owner.token, vaultId, { secret_path_pattern: pattern, principal_type: 'user', principal_id: member.userId, permissions, ...extra });
  const del = async (id: string) => expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${id}`, { token: owner.token })).status).toBe(204);

  beforeAll(async () => {
    owner = await signup('pol-effect');
    member = await joinAsMember(owner, 'pol-member');
    vaultId = await createVault(owner);
    for (const [path, value] of [['team/a', 'A'], ['team/a/b', 'AB'], ['team/secret', 'S'], ['other/x', 'X']]) {
      expect((await putSecret(owner.token, vaultId, path!, value!)).status).toBe(201);
    }
  });

  let teamPolicy: string;

  test('read on team/* reads team/a only; refusals name the permission and never reveal existence', async () => {
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(403);
    teamPolicy = (await grant('team/*', ['read'])).id;

    const ok = await readSecret(member.token, vaultId, 'team/a');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual(expect.objectContaining({ path: 'team/a', value: 'A' }));

    const nested = await readSecret(member.token, vaultId, 'team/a/b');
    expect(nested.status).toBe(403);
    const outside = await readSecret(member.token, vaultId, 'other/x');
    expect(outside.status).toBe(403);
    expect(outside.body.detail).toContain("'read'");

    // Existing and missing paths are refused with byte-identical bodies.
    const missing = await readSecret(member.token, vaultId, 'other/does-not-exist');
    expect(missing.status).toBe(403);
    expect(missing.text).toBe(outside.text);
    const missingNested = await readSecret(member.token, vaultId, 'team/a/nope');
    expect(missingNested.text).toBe(nested.text);
    expect(nested.text).toBe(outside.text);
    expect(outside.body.detail).not.toMatch(/not found|exist/i);

    const write = await putSecret(member.token, vaultId, 'team/b', 'member-wrote');
    expect(write.status).toBe(403);
    expect(write.body.detail).toContain("'write'");

    // The listing shows only what the member may read.
    const list = await call('GET', `/v1/vaults/${vaultId}/secrets`, { token: member.token });
    expect(list.status).toBe(200);
    expect(list.body.secrets.map((s: any) => s.path)).toEqual(['team/a', 'team/secret']);
  });

  test('widening permissions to read+write lets the member write on the very next request', async () => {
    const r = await call('PUT', `/v1/vaults/${vaultId}/policies/${teamPolicy}`, { token: owner.token, body: { permissions: ['read', 'write'] } });
    expect(r.status).toBe(200);
    const write = await putSecret(member.token, vaultId, 'team/b', 'member-wrote');
    expect(write.status).toBe(201);
    const back = await readSecret(owner.token, vaultId, 'team/b');
    expect(back.body.value).toBe('member-wrote');
    // Still one segment only.
    expect((await putSecret(member.token, vaultId, 'team/b/c', 'no')).status).toBe(403);
  });

  test('deleting the policy ends access on the very next read', async () => {
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(200);
    await del(teamPolicy);
    const r = await readSecret(member.token, vaultId, 'team/a');
    expect(r.status).toBe(403);
    expect(r.body.detail).toContain("'read'");
  });

  test('the read path keeps policies between reads, yet a change made straight in the database applies on the next read', async () => {
    // The secret read caches a principal's policies per vault version; a trigger moves the
    // version on any change to policies, so no writer (API, console, migration) can bypass it.
    const p = await grant('team/*', ['read']);
    for (let i = 0; i < 3; i++) expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(200);
    await db().query(`UPDATE policies SET permissions = '["write"]' WHERE id = $1`, [p.id]);
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(403);
    await db().query(`UPDATE policies SET permissions = '["read"]' WHERE id = $1`, [p.id]);
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(200);
    await db().query('DELETE FROM policies WHERE id = $1', [p.id]);
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(403);
    const { rows } = await db().query(`INSERT INTO policies (id, org_id, vault_id, secret_path_pattern, principal_type, principal_id, permissions, created_by, created_by_type)
      VALUES (gen_random_uuid(), $1, $2, 'team/*', 'user', $3, '["read"]', $4, 'user') RETURNING id`, [owner.orgId, vaultId, member.userId, owner.userId]);
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(200);
    await del(rows[0].id);
  });

  test('a ** policy covers nested paths (and the folder itself), nothing outside', async () => {
    const p = await grant('team/**', ['read']);
    expect((await readSecret(member.token, vaultId, 'team/a/b')).body.value).toBe('AB');
    expect((await readSecret(member.token, vaultId, 'team/a')).body.value).toBe('A');
    expect((await readSecret(member.token, vaultId, 'other/x')).status).toBe(403);
    await del(p.id);
    expect((await readSecret(member.token, vaultId, 'team/a/b')).status).toBe(403);
  });

  test('a deny policy on team/secret overrides an allow on team/*', async () => {
    const allow = await grant('team/*', ['read']);
    expect((await readSecret(member.token, vaultId, 'team/secret')).status).toBe(200);
    const deny = await grant('team/secret', ['read'], { effect: 'deny' });
    expect(deny.effect).toBe('deny');
    const refused = await readSecret(member.token, vaultId, 'team/secret');
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("'read'");
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(200);
    await del(deny.id);
    expect((await readSecret(member.token, vaultId, 'team/secret')).status).toBe(200);
    await del(allow.id);
  });

  test('an expiring policy works until its expiry and not after', async () => {
    const p = await grant('team/*', ['read'], { expires_at: new Date(Date.now() + 2_000).toISOString() });
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(200);
    const refused = await eventually('policy expiry', async () => {
      const r = await readSecret(member.token, vaultId, 'team/a');
      return r.status === 200 ? undefined : r;
    }, 15_000);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("'read'");
    await del(p.id);
  });

  test('ip_allowlist: 10.0.0.0/8 refuses a caller on 127.0.0.1, 127.0.0.0/8 admits it', async () => {
    const p = await grant('team/*', ['read'], { conditions: { ip_allowlist: ['10.0.0.0/8'] } });
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(403);
    const put = await call('PUT', `/v1/vaults/${vaultId}/policies/${p.id}`, { token: owner.token, body: { conditions: { ip_allowlist: ['127.0.0.0/8'] } } });
    expect(put.status).toBe(200);
    expect(put.body.conditions).toEqual({ ip_allowlist: ['127.0.0.0/8'] });
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(200);
    await del(p.id);
  });

  test('time_window: a window without the current UTC hour refuses, 0-24 admits', async () => {
    const h = new Date().getUTCHours();
    // Leave out the current hour and the next one, so crossing an hour boundary mid-test changes nothing.
    const excluding = { time_window: { start_hour: (h + 2) % 24, end_hour: h, timezone: 'UTC' } };
    const p = await grant('team/*', ['read'], { conditions: excluding });
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(403);
    const put = await call('PUT', `/v1/vaults/${vaultId}/policies/${p.id}`, { token: owner.token, body: { conditions: { time_window: { start_hour: 0, end_hour: 24 } } } });
    expect(put.status).toBe(200);
    expect((await readSecret(member.token, vaultId, 'team/a')).status).toBe(200);
    await del(p.id);
  });
});

describe('policy events and audit records', () => {
  let owner: Account;
  let vaultId: string;
  let policyId: string;

  beforeAll(async () => {
    owner = await signup('pol-events');
    vaultId = await createVault(owner);
    policyId = (await createPolicy(owner.token, vaultId, { secret_path_pattern: 'x/*', principal_type: 'user', principal_id: owner.userId, permissions: ['read'] })).id;
    expect((await call('PUT', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: owner.token, body: { permissions: ['write'] } })).status).toBe(200);
    expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${policyId}`, { token: owner.token })).status).toBe(204);
  });

  test('the outbox holds policy.created, policy.updated and policy.deleted in order', async () => {
    const r = await db().query<{ event_type: string; org_id: string; payload: any }>(
      "SELECT event_type, org_id, payload FROM event_outbox WHERE payload->>'policy_id' = $1 ORDER BY seq", [policyId]);
    expect(r.rows.map((e) => e.event_type)).toEqual(['policy.created', 'policy.updated', 'policy.deleted']);
    for (const e of r.rows) {
      expect(e.org_id).toBe(owner.orgId);
      expect(e.payload).toEqual(expect.objectContaining({ vault_id: vaultId, policy_id: policyId, principal_type: 'user', principal_id: owner.userId }));
    }
    expect(r.rows[0]!.payload).toEqual(expect.objectContaining({ secret_path_pattern: 'x/*', permissions: ['read'] }));
    expect(r.rows[1]!.payload.permissions).toEqual(['write']);
  });

  test.each(['policy.create', 'policy.update', 'policy.delete'])('%s is in the audit log', async (action) => {
    const r = await call('GET', `/v1/audit/events?action=${action}`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.body.events).toEqual([expect.objectContaining({
      action, actor_type: 'user', actor_id: owner.userId, org_id: owner.orgId, resource_type: 'policy', resource_id: policyId,
      details: expect.objectContaining({ vault_id: vaultId }),
    })]);
  });
});
