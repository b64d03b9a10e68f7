// One MikroORM instance per process: its connection pool, its transactions (em.transactional) and
// its statement API (em.execute). Records are read and written by each area's repository module
// in domain/, in plain SQL, so a conditional statement (a cap, a compare-and-swap) stays one
// atomic statement. The measured hot paths use db/hot-reads.ts.
// Every table is also described by an entity (db/entities, defineEntity: no discovery from the
// file system, no reflection), the ground for em.find and the ORM's typed Kysely; registering them
// changes no statement the app runs. The migrations (db/migrate.ts) still own the schema.
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { allEntities, PostgresConstraintNames } from './entities/index.ts';

export type Db = MikroORM;
export type Em = EntityManager;

/** The table db/migrate.ts keeps its record in: no entity, and never part of a schema diff. */
const MIGRATIONS_TABLE = 'schema_migrations';

export async function openDb(databaseUrl: string, poolMax = 10): Promise<MikroORM> {
  // libpq and node-pg read `?host=/dir` as a Unix-socket directory; MikroORM takes it as an option.
  const socketDir = new URL(databaseUrl).searchParams.get('host') ?? undefined;
  return MikroORM.init({
    clientUrl: databaseUrl,
    ...(socketDir?.startsWith('/') ? { host: socketDir } : {}),
    entities: [...allEntities],
    namingStrategy: PostgresConstraintNames,
    schemaGenerator: { skipTables: [MIGRATIONS_TABLE] },
    debug: false,
    pool: { min: 0, max: poolMax },
    discovery: { warnWhenNoEntities: false },
  });
}
