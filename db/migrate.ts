// Applies pending migrations inside one transaction under an advisory lock, so replicas that
// start together never race, and a failed migration leaves the schema as it was.
import type { EntityManager } from '@mikro-orm/postgresql';
import { migrations } from './migrations/index.ts';
import { ADVISORY_LOCKS } from './advisory-locks.ts';

export async function migrate(em: EntityManager, log: (m: string) => void): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute('SELECT pg_advisory_xact_lock(?)', [ADVISORY_LOCKS.migrations]);
    await tx.execute('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await tx.execute<{ name: string }[]>('SELECT name FROM schema_migrations')).map((r) => r.name));
    for (const m of migrations) {
      if (done.has(m.name)) continue;
      log(`applying migration ${m.name}`);
      await tx.execute(m.up);
      await tx.execute('INSERT INTO schema_migrations (name) VALUES (?)', [m.name]);
    }
  });
}
