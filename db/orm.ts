// One MikroORM instance per process. Request handlers use a fork of its EntityManager; raw SQL
// (em.execute) is used where a single conditional statement must be atomic.
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { entities } from './entities/index.ts';

export type Db = MikroORM;
export type Em = EntityManager;

export async function openDb(databaseUrl: string, poolMax = 10): Promise<MikroORM> {
  // libpq and node-pg read `?host=/dir` as a Unix-socket directory; MikroORM takes it as an option.
  const socketDir = new URL(databaseUrl).searchParams.get('host') ?? undefined;
  return MikroORM.init({
    clientUrl: databaseUrl,
    ...(socketDir?.startsWith('/') ? { host: socketDir } : {}),
    entities,
    debug: false,
    pool: { min: 0, max: poolMax },
    // Entities are declared with defineEntity; no reflection or discovery at start.
    discovery: { warnWhenNoEntities: false },
  });
}
