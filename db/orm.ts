// One MikroORM instance per process: its connection pool, its transactions (em.transactional) and
// its statement API (em.execute). Records are read and written by each area's repository module
// in domain/, in plain SQL, so a conditional statement (a cap, a compare-and-swap) stays one
// atomic statement; no entity mapping sits in between. The measured hot paths use db/hot-reads.ts.
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';

export type Db = MikroORM;
export type Em = EntityManager;

export async function openDb(databaseUrl: string, poolMax = 10): Promise<MikroORM> {
  // libpq and node-pg read `?host=/dir` as a Unix-socket directory; MikroORM takes it as an option.
  const socketDir = new URL(databaseUrl).searchParams.get('host') ?? undefined;
  return MikroORM.init({
    clientUrl: databaseUrl,
    ...(socketDir?.startsWith('/') ? { host: socketDir } : {}),
    entities: [],
    debug: false,
    pool: { min: 0, max: poolMax },
    discovery: { warnWhenNoEntities: false },
  });
}
