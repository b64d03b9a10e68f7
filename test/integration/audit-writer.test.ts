// The audit writer against the real database: many awaited records at once, from two writers
// (as two api processes would be) appending to the same chain, leave one valid linear chain.
import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { db, closeDb, call, signup } from '../helpers/api.ts';
import { hotReads, type HotReads } from '../../db/hot-reads.ts';
import { AuditWriter } from '../../domain/audit/audit-writer.ts';
import { chainHash, GENESIS_HASH } from '../../domain/audit/chain-hash.ts';
import { createLogger } from '../../domain/log.ts';
import { StaleReadError, guardValues, secretReadPrecondition, type ReadGuard } from '../../domain/secrets/read-guard.ts';

const key = createSecretKey(randomBytes(32));
const log = createLogger('error', 'audit-writer-test');
const opened: HotReads[] = [];
const writer = (applicationName = 'audit-writer-test') => {
  const sql = hotReads(process.env.TEST_DATABASE_URL!, 4, applicationName);
  opened.push(sql);
  return new AuditWriter(sql, key, log, secretReadPrecondition);
};

afterAll(async () => {
  for (const sql of opened) await sql.close();
  await closeDb();
});

/** Walks the chain by seq: every link and HMAC must hold and the head must be its end. */
async function assertValidChain(chain: string, expected: number): Promise<void> {
  const { rows } = await db().query('SELECT * FROM audit_events WHERE chain_key = $1 ORDER BY seq', [chain]);
  expect(rows).toHaveLength(expected);
  let prev = GENESIS_HASH;
  for (const r of rows) {
    expect(r.prev_hash).toBe(prev);
    const fields = {
      id: r.id, chainKey: r.chain_key, orgId: r.org_id, action: r.action, actorType: r.actor_type, actorId: r.actor_id,
      resourceType: r.resource_type, resourceId: r.resource_id, details: r.details, ipAddress: r.ip_address,
      requestId: r.request_id, createdAt: new Date(r.created_at),
    };
    expect(chainHash(key, prev, fields)).toBe(r.integrity_hash);
    prev = r.integrity_hash;
  }
  const head = await db().query('SELECT last_hash, last_seq FROM audit_chain_heads WHERE chain_key = $1', [chain]);
  expect(head.rows[0].last_hash).toBe(prev);
  expect(Number(head.rows[0].last_seq)).toBe(expected);
}

const event = (orgId: string, i: number, from: string) => ({
  orgId, action: 'secret.read', actorType: 'agent', actorId: from, resourceType: 'secret', resourceId: `s-${i}`,
  details: { path: `p/${i}`, version: 1, by: from }, ipAddress: '127.0.0.1', requestId: randomUUID(),
});

test('200 awaited records at once from one writer form one valid chain, each record exactly once', async () => {
  const orgId = randomUUID();
  const w = writer();
  await Promise.all(Array.from({ length: 200 }, (_, i) => w.record(event(orgId, i, 'a'))));
  await assertValidChain(orgId, 200);
  const { rows } = await db().query('SELECT count(DISTINCT resource_id)::int AS n FROM audit_events WHERE chain_key = $1', [orgId]);
  expect(rows[0].n).toBe(200);
});

test('two writers appending to the same chain concurrently relink on conflict and lose nothing', async () => {
  const orgId = randomUUID();
  const [a, b] = [writer(), writer()];
  // Waves, so that each writer's idea of the head goes stale again and again.
  for (let wave = 0; wave < 5; wave++) {
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => a.record(event(orgId, wave * 100 + i, 'a'))),
      ...Array.from({ length: 20 }, (_, i) => b.record(event(orgId, wave * 100 + 50 + i, 'b'))),
    ]);
  }
  await assertValidChain(orgId, 200);
});

test('drain waits for everything queued, including fire-and-forget records', async () => {
  const orgId = randomUUID();
  const w = writer();
  for (let i = 0; i < 30; i++) w.recordQuietly(event(orgId, i, 'q'));
  await w.drain();
  await assertValidChain(orgId, 30);
});

test('when its connection is killed, the writer fails the records in flight (so reads fail closed) and reconnects', async () => {
  const orgId = randomUUID();
  const name = `killed-${randomUUID().slice(0, 8)}`;
  const w = writer(name);
  await w.record(event(orgId, 0, 'k'));
  const killed = await db().query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [`${name}-audit-append`]);
  expect(killed.rowCount).toBe(1);
  let written = 1;
  let failed = 0;
  for (let i = 1; written < 4; i++) {
    try {
      await w.record(event(orgId, i, 'k'));
      written++;
    } catch {
      failed++;
      expect(failed).toBeLessThanOrEqual(2);
    }
  }
  // A record whose connection died after its commit may exist although its caller was refused;
  // either way the chain stays one valid line.
  const { rows } = await db().query('SELECT count(*)::int AS n FROM audit_events WHERE chain_key = $1', [orgId]);
  expect(rows[0].n).toBeGreaterThanOrEqual(written);
  await assertValidChain(orgId, rows[0].n);
});

test('a record whose read guard is stale is refused and not written; the others of its batch are written in one valid chain', async () => {
  const owner = await signup('guard');
  const vault = (await call('POST', '/v1/vaults', { token: owner.token, body: { name: 'guard' } })).body.id;
  expect((await call('PUT', `/v1/vaults/${vault}/secrets/g/one`, { token: owner.token, body: { value: 'G' } })).status).toBe(201);
  const { rows: [r] } = await db().query(`SELECT v.id AS vault_id, v.xmin::text AS vault_xmin, s.id AS secret_id, s.xmin::text AS secret_xmin,
      sv.xmin::text AS version_xmin
    FROM vaults v JOIN secrets s ON s.vault_id = v.id JOIN secret_versions sv ON sv.secret_id = s.id
    WHERE v.id = $1`, [vault]);
  const guard: ReadGuard = {
    vaultId: r.vault_id, vaultXmin: r.vault_xmin, secretId: r.secret_id, secretXmin: r.secret_xmin, version: 1,
    versionXmin: r.version_xmin, principalType: 'user', principalId: owner.userId, principalState: 'owner',
  };
  const orgId = randomUUID();
  const w = writer();
  const outcomes = await Promise.allSettled([
    w.record(event(orgId, 0, 'plain')),
    w.record({ ...event(orgId, 1, 'fresh'), guard: guardValues(guard) }),
    w.record({ ...event(orgId, 2, 'stale-secret'), guard: guardValues({ ...guard, secretXmin: '1' }) }),
    w.record({ ...event(orgId, 3, 'stale-user'), guard: guardValues({ ...guard, principalState: 'member' }) }),
    w.record(event(orgId, 4, 'plain')),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
  for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(StaleReadError);
  await assertValidChain(orgId, 3);
  const written = await db().query('SELECT resource_id FROM audit_events WHERE chain_key = $1 ORDER BY seq', [orgId]);
  expect(written.rows.map((x) => x.resource_id)).toEqual(['s-0', 's-1', 's-4']);

  // Once the secret changes, the guard that held a moment ago is stale too.
  await db().query('UPDATE secrets SET updated_at = now() WHERE id = $1', [guard.secretId]);
  await expect(w.record({ ...event(orgId, 5, 'fresh'), guard: guardValues(guard) })).rejects.toBeInstanceOf(StaleReadError);
  await assertValidChain(orgId, 3);
});

test('writers in three processes\' worth appending to one chain without pause all get every record in (none starves)', async () => {
  // Sustained contention, as api processes under load on one busy organization: each writer keeps
  // 32 records in flight, so whichever lost a race finds the others already writing again.
  const orgId = randomUUID();
  const writers = [writer('audit-writer-a'), writer('audit-writer-b'), writer('audit-writer-c')];
  const PER_LOOP = 25;
  let failed = 0;
  await Promise.all(writers.flatMap((w, n) => Array.from({ length: 32 }, async (_, loop) => {
    for (let i = 0; i < PER_LOOP; i++) {
      await w.record(event(orgId, (n * 32 + loop) * PER_LOOP + i, `w${n}`)).catch(() => { failed++; });
    }
  })));
  expect(failed).toBe(0);
  await assertValidChain(orgId, 3 * 32 * PER_LOOP);
}, 120_000);
