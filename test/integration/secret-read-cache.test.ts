// A repeated read is served from the read cache, with a guard checked in the statement that
// appends its audit record. Whatever changes a row the read relied on (made through the API or
// straight in the database) shows on the very next read, and a stale cached read leaves exactly
// one audit record: the fresh read's.
import { call, closeDb, db, signup, joinAsMember, type Account } from '../helpers/api.ts';
import { type Agent, registerAgent, agentJwt, createVault, putSecret, readSecret, grantAgent, patchAgent } from '../helpers/agent-fixtures.ts';

afterAll(closeDb);

let owner: Account;
let agent: Agent;
let jwt: string;
let vaultId: string;

beforeAll(async () => {
  owner = await signup('read-cache');
  vaultId = await createVault(owner, 'read-cache');
  agent = await registerAgent(owner, { name: 'cache-bot' });
  await grantAgent(owner, vaultId, agent.id, 'keys/*', ['read']);
  jwt = await agentJwt(agent);
});

/** Puts a secret and reads it twice, so the second read and the next are served from the cache. */
async function cachedSecret(path: string, value: string, type?: string): Promise<void> {
  expect((await putSecret(owner.token, vaultId, path, value, type)).status).toBe(201);
  for (let i = 0; i < 2; i++) expect((await readSecret(jwt, vaultId, path)).body.value).toBe(value);
}

/**
 * Runs `read` while another session holds an exclusive lock on `policies`. A fresh read's query
 * includes policies and would wait for the lock; a read served from the cache (its guard looks
 * at vaults, secrets, versions, agents and users only) does not.
 */
async function underPoliciesLock<T>(read: () => Promise<T>, waitMs = 5000): Promise<T | 'waited for the lock'> {
  const locker = await db().connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE policies IN ACCESS EXCLUSIVE MODE');
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<'waited for the lock'>((r) => { timer = setTimeout(() => r('waited for the lock'), waitMs); });
    try {
      return await Promise.race([read(), waited]);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await locker.query('ROLLBACK');
    locker.release();
  }
}

const secretId = async (path: string) =>
  (await db().query('SELECT id FROM secrets WHERE vault_id = $1 AND path = $2', [vaultId, path])).rows[0].id as string;

test('a repeated read is served from the cache: it needs no query of its own', async () => {
  await cachedSecret('keys/hit', 'HIT-1');
  const r = await underPoliciesLock(() => readSecret(jwt, vaultId, 'keys/hit'));
  expect(r).not.toBe('waited for the lock');
  expect(r !== 'waited for the lock' && r.body.value).toBe('HIT-1');
  // The control: a read the cache does not hold is a fresh one, and waits.
  expect((await putSecret(owner.token, vaultId, 'keys/miss', 'MISS-1')).status).toBe(201);
  expect(await underPoliciesLock(() => readSecret(jwt, vaultId, 'keys/miss'), 1000)).toBe('waited for the lock');
});

test('failed logins on a user\'s email do not make that user\'s cached reads stale', async () => {
  expect((await putSecret(owner.token, vaultId, 'ops/owned', 'OWN-1')).status).toBe(201);
  for (let i = 0; i < 2; i++) expect((await readSecret(owner.token, vaultId, 'ops/owned')).body.value).toBe('OWN-1');
  expect((await call('POST', '/v1/auth/token', { body: { email: owner.email, password: 'not-the-password' } })).status).toBe(401);
  const r = await underPoliciesLock(() => readSecret(owner.token, vaultId, 'ops/owned'));
  expect(r !== 'waited for the lock' && r.body.value).toBe('OWN-1');
});

test('a secret soft-deleted straight in the database answers 404 on the next read', async () => {
  await cachedSecret('keys/deleted', 'DEL-1');
  await db().query('UPDATE secrets SET deleted_at = now() WHERE id = $1', [await secretId('keys/deleted')]);
  const r = await readSecret(jwt, vaultId, 'keys/deleted');
  expect(r.status).toBe(404);
  expect(r.text).not.toContain('DEL-1');
});

test('a version disabled in the database answers 410; a new version written through the API is read at once', async () => {
  await cachedSecret('keys/versioned', 'V-1');
  await db().query('UPDATE secret_versions SET disabled_at = now() WHERE secret_id = $1 AND version = 1', [await secretId('keys/versioned')]);
  expect((await readSecret(jwt, vaultId, 'keys/versioned')).status).toBe(410);
  expect((await putSecret(owner.token, vaultId, 'keys/versioned', 'V-2')).status).toBe(201);
  const r = await readSecret(jwt, vaultId, 'keys/versioned');
  expect(r.body).toEqual(expect.objectContaining({ value: 'V-2', version: 2 }));
});

test('a secret expired in the database answers 410, and so does one whose expiry passes while cached', async () => {
  await cachedSecret('keys/expired', 'EXP-1');
  await db().query(`UPDATE secrets SET expires_at = now() - interval '1 second' WHERE id = $1`, [await secretId('keys/expired')]);
  expect((await readSecret(jwt, vaultId, 'keys/expired')).status).toBe(410);

  const expiresAt = new Date(Date.now() + 1500).toISOString();
  expect((await call('PUT', `/v1/vaults/${vaultId}/secrets/keys/soon`, { token: owner.token, body: { value: 'SOON', expires_at: expiresAt } })).status).toBe(201);
  for (let i = 0; i < 2; i++) expect((await readSecret(jwt, vaultId, 'keys/soon')).status).toBe(200);
  await new Promise((r) => setTimeout(r, Date.parse(expiresAt) - Date.now() + 100));
  expect((await readSecret(jwt, vaultId, 'keys/soon')).status).toBe(410);
});

test('the agent\'s grant removed in the database, or its Intents flag set there, refuses the next read', async () => {
  await cachedSecret('keys/granted', 'G-1');
  const { rows } = await db().query('DELETE FROM policies WHERE vault_id = $1 AND principal_id = $2 RETURNING *', [vaultId, agent.id]);
  expect((await readSecret(jwt, vaultId, 'keys/granted')).status).toBe(403);
  const p = rows[0];
  await db().query(`INSERT INTO policies (id, org_id, vault_id, secret_path_pattern, principal_type, principal_id, permissions, created_by, created_by_type)
    VALUES ($1, $2, $3, $4, 'agent', $5, $6, $7, $8)`, [p.id, p.org_id, vaultId, p.secret_path_pattern, agent.id, JSON.stringify(p.permissions), p.created_by, p.created_by_type]);
  await cachedSecret('keys/signing', 'PK-1', 'private_key');
  await db().query('UPDATE agents SET intents_api_enabled = true WHERE id = $1', [agent.id]);
  const refused = await readSecret(jwt, vaultId, 'keys/signing');
  expect(refused.status).toBe(403);
  expect(refused.body.detail).toMatch(/Intents API/);
  // Through the API the flag changes the token's claims, so the agent takes a new token.
  expect((await patchAgent(owner, agent.id, { intents_api_enabled: false })).status).toBe(200);
  expect((await readSecret(jwt, vaultId, 'keys/signing')).status).toBe(401);
  jwt = await agentJwt(agent);
  expect((await readSecret(jwt, vaultId, 'keys/signing')).body.value).toBe('PK-1');
});

test('a member demoted in the database loses what only the role gave', async () => {
  const admin = await joinAsMember(owner, 'cache-admin');
  await db().query(`UPDATE users SET role = 'admin' WHERE id = $1`, [admin.userId]);
  expect((await putSecret(owner.token, vaultId, 'ops/root', 'ROOT-1')).status).toBe(201);
  for (let i = 0; i < 2; i++) expect((await readSecret(admin.token, vaultId, 'ops/root')).body.value).toBe('ROOT-1');
  await db().query(`UPDATE users SET role = 'member' WHERE id = $1`, [admin.userId]);
  expect((await readSecret(admin.token, vaultId, 'ops/root')).status).toBe(403);
});

test('a vault deleted through the API answers 404 to a read the cache held', async () => {
  const other = await createVault(owner, 'read-cache-doomed');
  expect((await putSecret(owner.token, other, 'x/y', 'DOOMED')).status).toBe(201);
  for (let i = 0; i < 2; i++) expect((await readSecret(owner.token, other, 'x/y')).body.value).toBe('DOOMED');
  expect((await call('DELETE', `/v1/vaults/${other}`, { token: owner.token })).status).toBe(204);
  expect((await readSecret(owner.token, other, 'x/y')).status).toBe(404);
});

test('a stale cached read leaves one audit record, the fresh read\'s, and the chain stays whole', async () => {
  await cachedSecret('keys/audited', 'AUD-1');
  const id = await secretId('keys/audited');
  const count = async () => (await db().query(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'secret.read' AND resource_id = $1`, [id])).rows[0].n as number;
  expect(await count()).toBe(2);
  await db().query(`UPDATE secrets SET updated_at = now() WHERE id = $1`, [id]); // any change at all makes the guard stale
  expect((await readSecret(jwt, vaultId, 'keys/audited')).body.value).toBe('AUD-1');
  expect(await count()).toBe(3);
  const chain = await db().query(`SELECT prev_hash, integrity_hash FROM audit_events WHERE chain_key = $1 ORDER BY seq`, [owner.orgId]);
  for (let i = 1; i < chain.rows.length; i++) expect(chain.rows[i].prev_hash).toBe(chain.rows[i - 1].integrity_hash);
});

test('a cached read of version N answers 410 once that version is disabled', async () => {
  await cachedSecret('keys/pinned', 'P-1');
  expect((await putSecret(owner.token, vaultId, 'keys/pinned', 'P-2')).status).toBe(201);
  const v1 = () => call('GET', `/v1/vaults/${vaultId}/secrets/keys/pinned?version=1`, { token: jwt });
  for (let i = 0; i < 2; i++) expect((await v1()).body).toEqual(expect.objectContaining({ value: 'P-1', version: 1 }));
  await db().query('UPDATE secret_versions SET disabled_at = now() WHERE secret_id = $1 AND version = 1', [await secretId('keys/pinned')]);
  expect((await v1()).status).toBe(410);
  expect((await readSecret(jwt, vaultId, 'keys/pinned')).body.value).toBe('P-2');
});

test('a deny policy added through the API refuses a read the cache held', async () => {
  await cachedSecret('keys/denied', 'DENY-1');
  const deny = await call('POST', `/v1/vaults/${vaultId}/policies`, {
    token: owner.token, body: { secret_path_pattern: 'keys/denied', principal_type: 'agent', principal_id: agent.id, permissions: ['read'], effect: 'deny' },
  });
  expect(deny.status).toBe(201);
  expect((await readSecret(jwt, vaultId, 'keys/denied')).status).toBe(403);
  expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${deny.body.id}`, { token: owner.token })).status).toBe(204);
  expect((await readSecret(jwt, vaultId, 'keys/denied')).body.value).toBe('DENY-1');
});

test('an agent deactivated straight in the database (its tokens not revoked) gets 401, cached or not', async () => {
  const other = await registerAgent(owner, { name: 'cache-bot-2' });
  await grantAgent(owner, vaultId, other.id, 'keys/*', ['read']);
  const token = await agentJwt(other);
  expect((await putSecret(owner.token, vaultId, 'keys/inactive', 'IN-1')).status).toBe(201);
  for (let i = 0; i < 2; i++) expect((await readSecret(token, vaultId, 'keys/inactive')).body.value).toBe('IN-1');
  await db().query(`UPDATE agents SET status = 'inactive' WHERE id = $1`, [other.id]);
  for (const path of ['keys/inactive', 'keys/hit']) {
    const r = await readSecret(token, vaultId, path);
    expect(r.status).toBe(401);
    expect(r.text).not.toContain('IN-1');
  }
});

test('TRUNCATE of policies moves every vault\'s policy_version, as row changes do', async () => {
  const client = await db().connect();
  try {
    await client.query('BEGIN');
    const before = (await client.query('SELECT policy_version FROM vaults WHERE id = $1', [vaultId])).rows[0].policy_version;
    await client.query('TRUNCATE policies');
    const after = (await client.query('SELECT policy_version FROM vaults WHERE id = $1', [vaultId])).rows[0].policy_version;
    expect(Number(after)).toBe(Number(before) + 1);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
});
