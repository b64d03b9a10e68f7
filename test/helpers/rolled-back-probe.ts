// For probes (test/integration/*.probe.ts, run under Node 24 by their tests: MikroORM is ESM
// only, jest runs CommonJS): runs `work` in a transaction on DATABASE_URL that is rolled back
// whatever it did, then prints what it returned as JSON for the test to read.
import type { EntityManager } from '@mikro-orm/postgresql';
import { openDb } from '../../db/orm.ts';

export async function probeInRollback(work: (em: EntityManager) => Promise<Record<string, unknown>>): Promise<void> {
  const orm = await openDb(process.env.DATABASE_URL!, 1);
  const rollback = new Error('rollback');
  let out: Record<string, unknown> = {};
  try {
    await orm.em.fork().transactional(async (em) => {
      out = await work(em);
      throw rollback;
    });
  } catch (e) {
    if (e !== rollback) throw e;
  } finally {
    await orm.close();
  }
  process.stdout.write(JSON.stringify(out));
}
