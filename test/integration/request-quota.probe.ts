// Run by request-quota.test.ts under Node 24 (MikroORM is ESM only; jest runs CommonJS). Two quota
// meters (two api processes) on the Postgres store share a free organization's quota of 1,000:
// 3,000 requests side by side, then both stop; prints what they admitted and what the month's row
// recorded, as JSON. The organization is created and deleted here.
// Usage: DATABASE_URL=… request-quota.probe.ts
import { randomUUID } from 'node:crypto';
import { openDb } from '../../db/orm.ts';
import { query } from '../../db/query.ts';
import { QuotaMeter } from '../../domain/billing/quota-meter.ts';
import { postgresQuotaStore } from '../../domain/billing/postgres-quota-store.ts';
import { monthOf } from '../../domain/billing/request-quotas.ts';
import { usageOf } from '../../domain/billing/request-usage-repository.ts';

const orm = await openDb(process.env.DATABASE_URL!, 4);
const db = () => orm.em.fork();
const orgId = randomUUID();
const out: Record<string, unknown> = {};
try {
  await query(db()).insertInto('organizations').values({ id: orgId, name: 'quota probe' }).execute();
  const meters = [0, 1].map(() => new QuotaMeter({ store: postgresQuotaStore(db), flushMs: 50 }));
  const results = await Promise.all(Array.from({ length: 3_000 }, (_, i) => meters[i % 2]!.admit(orgId)));
  out.admitted = results.filter((r) => r.admitted).length;
  out.refusedQuota = [...new Set(results.filter((r) => !r.admitted).map((r) => r.quota))];
  await Promise.all(meters.map((m) => m.stop()));
  out.row = await usageOf(db(), orgId, monthOf(new Date()));
  // An unlimited organization: counted, never leased.
  await query(db()).updateTable('organizations').set({ billing_tier: 'enterprise' }).where('id', '=', orgId).execute();
  const unlimited = new QuotaMeter({ store: postgresQuotaStore(db), flushMs: 50, quotaTtlMs: 0 });
  for (let i = 0; i < 25; i++) await unlimited.admit(orgId);
  await unlimited.stop();
  out.afterUnlimited = await usageOf(db(), orgId, monthOf(new Date()));
} finally {
  await query(db()).deleteFrom('organizations').where('id', '=', orgId).execute();
  await orm.close();
}
process.stdout.write(JSON.stringify(out));
