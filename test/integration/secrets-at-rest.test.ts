// Secrets at rest: no plaintext on disk, integrity of moved rows, events, audit, the secret cap.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { call, closeDb, db, signup, type Account } from '../helpers/api.ts';
import { rnd, isProblem, newVault, secretUrl, put, putOk, listAll, filesContaining } from '../helpers/vault-fixtures.ts';

afterAll(closeDb);

describe('encryption at rest and integrity', () => {
  let a: Account;
  let vault: string;
  beforeAll(async () => { a = await signup('at-rest'); vault = await newVault(a); });

  test('the plaintext appears nowhere in PostgreSQL, not even in its files', async () => {
    const value = `PLAINTEXT-${randomBytes(16).toString('hex')}`;
    const marker = `MARKER-${randomBytes(16).toString('hex')}`; // stored in clear on purpose: proves the scan sees data
    const w = await putOk(a, vault, 'rest/check', value, { metadata: { marker } });
    expect((await call('GET', secretUrl(vault, 'rest/check'), { token: a.token })).body.value).toBe(value);
    await putOk(a, vault, 'rest/check', `${value}-v2`);

    const cts = await db().query('SELECT version, ciphertext, wrapped_key FROM secret_versions WHERE secret_id = $1 ORDER BY version', [w.body.id]);
    expect(cts.rows).toHaveLength(2);
    for (const row of cts.rows) {
      expect(Buffer.isBuffer(row.ciphertext)).toBe(true);
      expect(row.ciphertext.length).toBeGreaterThan(0);
      expect(row.ciphertext.indexOf(Buffer.from(value))).toBe(-1);
      expect(row.wrapped_key.indexOf(Buffer.from(value))).toBe(-1);
    }
    // The read is audited before we look at the audit table and the files.
    expect((await call('GET', '/v1/audit/events?limit=1', { token: a.token })).status).toBe(200);
    const like = `%${value}%`;
    for (const table of ['audit_events', 'event_outbox', 'secrets', 'secret_versions', 'vaults']) {
      const r = await db().query(`SELECT count(*)::int AS n FROM ${table} t WHERE t::text LIKE $1`, [like]);
      expect({ table, n: r.rows[0].n }).toEqual({ table, n: 0 });
    }
    const outbox = await db().query("SELECT count(*)::int AS n FROM event_outbox WHERE org_id = $1 AND payload->>'path' = 'rest/check'", [a.orgId]);
    expect(outbox.rows[0].n).toBe(2);

    await db().query('CHECKPOINT');
    const pgDir = path.join(process.env.TEST_DATA_DIR!, 'postgres');
    expect(fs.existsSync(pgDir)).toBe(true);
    expect(filesContaining(pgDir, Buffer.from(marker, 'utf8')).length).toBeGreaterThan(0);
    expect(filesContaining(pgDir, Buffer.from(value, 'utf8'))).toEqual([]);
  });

  test('a data key and ciphertext moved to another secret fail closed with secret_integrity_error', async () => {
    const valueA = `MOVED-A-${randomBytes(8).toString('hex')}`;
    const valueB = `MOVED-B-${randomBytes(8).toString('hex')}`;
    const sa = await putOk(a, vault, 'moved/source', valueA);
    const sb = await putOk(a, vault, 'moved/target', valueB);
    const updated = await db().query(
      `UPDATE secret_versions t SET wrapped_key = s.wrapped_key, ciphertext = s.ciphertext
       FROM secret_versions s WHERE s.secret_id = $1 AND s.version = 1 AND t.secret_id = $2 AND t.version = 1`, [sa.body.id, sb.body.id]);
    expect(updated.rowCount).toBe(1);

    const r = await call('GET', secretUrl(vault, 'moved/target'), { token: a.token });
    isProblem(r, 500, 'secret_integrity_error');
    expect(r.body.detail).not.toContain(valueA);
    expect(r.body.detail).not.toContain(valueB);
    expect(r.text).not.toContain(valueA);
    expect(r.text).not.toContain(valueB);
    const v1 = await call('GET', `/v1/vaults/${vault}/secret-version/moved/target/1`, { token: a.token });
    isProblem(v1, 500, 'secret_integrity_error');
    expect(v1.text).not.toContain(valueA);
    // The source is untouched; a new version of the target is fine again.
    expect((await call('GET', secretUrl(vault, 'moved/source'), { token: a.token })).body.value).toBe(valueA);
    await putOk(a, vault, 'moved/target', `${valueB}-fixed`);
    expect((await call('GET', secretUrl(vault, 'moved/target'), { token: a.token })).body.value).toBe(`${valueB}-fixed`);
  });
});

describe('events and audit', () => {
  let a: Account;
  let vault: string;
  beforeAll(async () => { a = await signup('events'); vault = await newVault(a); });

  test('create, update and delete queue secret.created/updated/deleted without the value', async () => {
    const v1 = rnd('EVENTVAL');
    const v2 = rnd('EVENTVAL');
    const w = await putOk(a, vault, 'ev/path', v1);
    await putOk(a, vault, 'ev/path', v2);
    expect((await call('DELETE', secretUrl(vault, 'ev/path'), { token: a.token })).status).toBe(204);
    const rows = await db().query(
      "SELECT event_type, payload FROM event_outbox WHERE org_id = $1 AND payload->>'path' = 'ev/path' ORDER BY seq", [a.orgId]);
    expect(rows.rows.map((r) => r.event_type)).toEqual(['secret.created', 'secret.updated', 'secret.deleted']);
    for (const r of rows.rows) {
      expect(r.payload).toEqual(expect.objectContaining({ path: 'ev/path', vault_id: vault, secret_id: w.body.id }));
      expect(r.payload).not.toHaveProperty('value');
      const text = JSON.stringify(r.payload);
      expect(text).not.toContain(v1);
      expect(text).not.toContain(v2);
    }
    expect(rows.rows[0].payload.version).toBe(1);
    expect(rows.rows[1].payload.version).toBe(2);
  });

  test('reads are audited as secret.read with vault and path, never the value', async () => {
    const value = rnd('AUDITVAL');
    const w = await putOk(a, vault, 'audited/key', value);
    const read = await call('GET', secretUrl(vault, 'audited/key'), { token: a.token });
    expect(read.body.value).toBe(value);
    await call('GET', `/v1/vaults/${vault}/secret-version/audited/key/1`, { token: a.token });
    const r = await call('GET', '/v1/audit/events?action=secret.read&limit=50', { token: a.token });
    expect(r.status).toBe(200);
    const reads = r.body.events.filter((e: any) => e.details?.path === 'audited/key');
    expect(reads.length).toBeGreaterThanOrEqual(2);
    expect(reads[0]).toEqual(expect.objectContaining({
      action: 'secret.read', actor_type: 'user', actor_id: a.userId, org_id: a.orgId, resource_type: 'secret', resource_id: w.body.id,
      details: expect.objectContaining({ vault_id: vault, path: 'audited/key', version: 1 }),
    }));
    expect(r.body.events.every((e: any) => e.action === 'secret.read')).toBe(true);
    expect(r.text).not.toContain(value);
    const all = await call('GET', '/v1/audit/events?limit=1000', { token: a.token });
    expect(all.text).not.toContain(value);
    expect(all.body.events.some((e: any) => e.action === 'secret.write' && e.details?.path === 'audited/key')).toBe(true);
  });
});

describe('secret tier cap', () => {
  test('the free tier allows 50 secrets; updating at the cap still works', async () => {
    const a = await signup('secret-cap');
    const vault = await newVault(a);
    for (let batch = 0; batch < 49; batch += 10) {
      const n = Math.min(10, 49 - batch);
      const rs = await Promise.all(Array.from({ length: n }, (_, k) => put(a, vault, `cap/s-${batch + k}`, { value: `cap-${batch + k}` })));
      for (const r of rs) expect(r.status).toBe(201);
    }
    expect(await listAll(a, vault)).toHaveLength(49);
    expect((await put(a, vault, 'cap/fiftieth', { value: 'fifty' })).status).toBe(201);
    const over = await put(a, vault, 'cap/fifty-first', { value: 'fifty-one' });
    isProblem(over, 403, 'resource_limit_exceeded');
    expect(over.body).toEqual(expect.objectContaining({ resource: 'secrets', limit: 50, used: 50, tier: 'free' }));
    // Secrets count across vaults of the organization.
    const second = await newVault(a);
    isProblem(await put(a, second, 'elsewhere/x', { value: 'v' }), 403, 'resource_limit_exceeded');

    const update = await put(a, vault, 'cap/s-0', { value: 'cap-0-updated' });
    expect(update.status).toBe(201);
    expect(update.body.version).toBe(2);
    expect((await call('GET', secretUrl(vault, 'cap/s-0'), { token: a.token })).body.value).toBe('cap-0-updated');
    isProblem(await put(a, vault, 'cap/fifty-first', { value: 'fifty-one' }), 403, 'resource_limit_exceeded');

    // A soft delete frees a slot; reviving the deleted path needs one again.
    expect((await call('DELETE', secretUrl(vault, 'cap/s-1'), { token: a.token })).status).toBe(204);
    expect((await put(a, vault, 'cap/fifty-first', { value: 'fifty-one' })).status).toBe(201);
    isProblem(await put(a, vault, 'cap/s-1', { value: 'revived' }), 403, 'resource_limit_exceeded');
    expect(await listAll(a, vault)).toHaveLength(50);
  });
});
