// Secret features from the reference contract (issue 8 §5): a read cap (`max_access_count`,
// counted atomically), `rotation_policy`, server-side rotation (`secret-rotate`) and disabling
// one version (`secret-version-disable`).
import { call, closeDb, db, signup, type Account } from '../helpers/api.ts';
import { isProblem, newVault, secretUrl, put, putOk } from '../helpers/vault-fixtures.ts';
import { registerAgent, agentJwt, grantAgent, auditFor } from '../helpers/agent-fixtures.ts';

afterAll(closeDb);

let owner: Account;
let vault: string;
// One agent for the whole file: the free tier allows two per organization.
let agent: Awaited<ReturnType<typeof registerAgent>>;
beforeAll(async () => { owner = await signup('lifecycle'); vault = await newVault(owner); agent = await registerAgent(owner); });

const read = (token: string, p: string, q = '') => call('GET', `${secretUrl(vault, p)}${q}`, { token });

describe('max_access_count', () => {
  test('each successful read counts; past the cap reads answer 410', async () => {
    const w = await putOk(owner, vault, 'capped/once-twice', 'limited', { max_access_count: 2 });
    expect(w.body.max_access_count).toBe(2);
    expect((await read(owner.token, 'capped/once-twice')).body.value).toBe('limited');
    expect((await read(owner.token, 'capped/once-twice')).body.value).toBe('limited');
    const third = await read(owner.token, 'capped/once-twice');
    isProblem(third, 410);
    expect(third.text).not.toContain('limited');
  });

  test('parallel reads never exceed the cap (one conditional UPDATE per read)', async () => {
    await putOk(owner, vault, 'capped/race', 'raced', { max_access_count: 5 });
    const answers = await Promise.all(Array.from({ length: 30 }, () => read(owner.token, 'capped/race')));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    expect(answers.filter((r) => r.status === 410)).toHaveLength(25);
    const { rows } = await db().query("SELECT access_count FROM secrets WHERE vault_id = $1 AND path = 'capped/race'", [vault]);
    expect(rows[0].access_count).toBe(5);
  });

  test('an agent reading a capped secret again and again is counted every time (no cached reads)', async () => {
    await grantAgent(owner, vault, agent.id, 'capped/**', ['read']);
    const jwt = await agentJwt(agent);
    await putOk(owner, vault, 'capped/agent', 'agent-limited', { max_access_count: 3 });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await read(jwt, 'capped/agent')).status);
    expect(statuses).toEqual([200, 200, 200, 410, 410]);
  });

  test('a new cap resets the count, null removes it, and a write without the field keeps it', async () => {
    await putOk(owner, vault, 'capped/reset', 'v1', { max_access_count: 1 });
    expect((await read(owner.token, 'capped/reset')).status).toBe(200);
    isProblem(await read(owner.token, 'capped/reset'), 410);
    const kept = await putOk(owner, vault, 'capped/reset', 'v2');
    expect(kept.body.max_access_count).toBe(1);
    isProblem(await read(owner.token, 'capped/reset'), 410);
    await putOk(owner, vault, 'capped/reset', 'v3', { max_access_count: 2 });
    expect((await read(owner.token, 'capped/reset')).body.value).toBe('v3');
    const removed = await putOk(owner, vault, 'capped/reset', 'v4', { max_access_count: null });
    expect(removed.body.max_access_count).toBeUndefined();
    for (let i = 0; i < 4; i++) expect((await read(owner.token, 'capped/reset')).body.value).toBe('v4');
  });

  test('a cap must be a positive integer', async () => {
    for (const bad of [0, -1, 1.5, '3', 2_147_483_648]) isProblem(await put(owner, vault, 'capped/bad', { value: 'x', max_access_count: bad }), 400);
  });
});

test('rotation_policy is stored as given', async () => {
  const policy = { interval_days: 30, notify: ['ops@example.com'] };
  const w = await putOk(owner, vault, 'rotating/db', 'pw', { rotation_policy: policy });
  expect(w.body.rotation_policy).toEqual(policy);
  const { rows } = await db().query("SELECT rotation_policy FROM secrets WHERE vault_id = $1 AND path = 'rotating/db'", [vault]);
  expect(rows[0].rotation_policy).toEqual(policy);
  isProblem(await put(owner, vault, 'rotating/db', { value: 'x', rotation_policy: 'weekly' }), 400);
});

describe('secret-rotate', () => {
  const rotate = (token: string, p: string, body?: unknown) => call('POST', `/v1/vaults/${vault}/secret-rotate/${p}`, { token, ...(body !== undefined ? { body } : {}) });

  test('stores a random 32-character hex value as a new version and never returns it', async () => {
    await putOk(owner, vault, 'rot/api-key', 'old-value', { type: 'api_key' });
    const r = await rotate(owner.token, 'rot/api-key');
    expect(r.status).toBe(201);
    expect(r.body).toEqual(expect.objectContaining({ path: 'rot/api-key', version: 2, type: 'api_key' }));
    expect(r.body.value).toBeUndefined();
    const value = (await read(owner.token, 'rot/api-key')).body.value;
    expect(value).toMatch(/^[0-9a-f]{32}$/);
    expect(r.text).not.toContain(value);
    expect((await read(owner.token, 'rot/api-key', '?version=1')).body.value).toBe('old-value');
    const events = await db().query("SELECT event_type FROM event_outbox WHERE payload->>'secret_id' = $1 ORDER BY seq", [r.body.id]);
    expect(events.rows.map((e) => e.event_type)).toEqual(['secret.created', 'secret.rotated']);
    const audit = await auditFor(owner, 'secret.rotate', r.body.id);
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(value);
  });

  test('length and charset choose the value; the type may change', async () => {
    await putOk(owner, vault, 'rot/shapes', 'x');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ length: 64, charset: 'alphanumeric' }, /^[A-Za-z0-9]{64}$/],
      [{ length: 8, charset: 'base64' }, /^[A-Za-z0-9+/]{8}$/],
      [{ length: 1024, charset: 'ascii' }, /^[\x21-\x7e]{1024}$/],
      [{ length: 40, charset: 'hex', type: 'password' }, /^[0-9a-f]{40}$/],
    ];
    for (const [body, shape] of cases) {
      expect((await rotate(owner.token, 'rot/shapes', body)).status).toBe(201);
      expect((await read(owner.token, 'rot/shapes')).body.value).toMatch(shape);
    }
    expect((await read(owner.token, 'rot/shapes')).body.type).toBe('password');
  });

  test('bad input is a 400; a missing secret a 404; no permission a 403', async () => {
    await putOk(owner, vault, 'rot/guarded', 'x');
    for (const body of [{ length: 7 }, { length: 1025 }, { charset: 'emoji' }, { length: '32' }, { type: 'nonsense' }]) {
      isProblem(await rotate(owner.token, 'rot/guarded', body), 400);
    }
    isProblem(await rotate(owner.token, 'rot/never-written'), 404);
    await grantAgent(owner, vault, agent.id, 'rot/**', ['read']);
    const jwt = await agentJwt(agent);
    isProblem(await rotate(jwt, 'rot/guarded'), 403);
    await grantAgent(owner, vault, agent.id, 'rot/**', ['rotate']);
    expect((await rotate(jwt, 'rot/guarded')).status).toBe(201);
  });
});

describe('secret-version-disable', () => {
  const disable = (token: string, p: string, v: number | string) => call('POST', `/v1/vaults/${vault}/secret-version-disable/${p}/${v}`, { token });

  test('a disabled version reads 410; the others stay readable; the versions list says so', async () => {
    await putOk(owner, vault, 'dis/key', 'one');
    await putOk(owner, vault, 'dis/key', 'two');
    expect((await read(owner.token, 'dis/key', '?version=1')).body.value).toBe('one'); // cached now
    expect((await disable(owner.token, 'dis/key', 1)).status).toBe(204);
    isProblem(await read(owner.token, 'dis/key', '?version=1'), 410);
    isProblem(await call('GET', `/v1/vaults/${vault}/secret-version/dis/key/1`, { token: owner.token }), 410);
    expect((await read(owner.token, 'dis/key')).body.value).toBe('two');
    const versions = await call('GET', `/v1/vaults/${vault}/secret-versions/dis/key`, { token: owner.token });
    expect(versions.body.versions.map((v: any) => [v.version, v.is_disabled])).toEqual([[2, false], [1, true]]);
    expect((await disable(owner.token, 'dis/key', 1)).status).toBe(204); // idempotent
  });

  test('unknown versions and secrets are 404; a bad version 400; without write 403', async () => {
    await putOk(owner, vault, 'dis/other', 'x');
    isProblem(await disable(owner.token, 'dis/other', 9), 404);
    isProblem(await disable(owner.token, 'dis/none', 1), 404);
    isProblem(await disable(owner.token, 'dis/other', 'one'), 400);
    await grantAgent(owner, vault, agent.id, 'dis/**', ['read']);
    isProblem(await disable(await agentJwt(agent), 'dis/other', 1), 403);
  });
});

test('a version number beyond the integer column is a 400, not a 500', async () => {
  await putOk(owner, vault, 'big/version', 'x');
  for (const v of ['2147483648', '1e10', '-1', '0', 'abc']) isProblem(await read(owner.token, 'big/version', `?version=${v}`), 400);
});
