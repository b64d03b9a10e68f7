// The statement API the domain's repositories use (execute with `?` placeholders, the typed
// Kysely of db/query.ts, transactional), over a pg pool or client of the test stack's Postgres:
// jest cannot load MikroORM (an ES module), and this is all the repository code asks of an
// EntityManager. Kysely itself is an ES module too; jest.config.json transforms it.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import pg from 'pg';

// The values db/query.ts's plugin returns for these types: int8 as a number, date as its
// 'YYYY-MM-DD' text (timestamptz is a Date and jsonb parsed, as node-pg does). The plugin itself
// gets no entities here (getMetadata below), so these parsers do its work.
const ormTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8) return (v: string) => Number(v);
    if (oid === pg.types.builtins.DATE) return (v: string) => v;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** The pool or the one client as Kysely's pool: each statement with the ORM's value types. */
function kyselyPool(q: pg.Pool | pg.PoolClient): PostgresPool {
  const withTypes = (c: pg.Pool | pg.PoolClient) => ({
    query: (text: string, values: unknown[]) => c.query({ text, values, types: ormTypes }),
  });
  if ('totalCount' in q) {
    return {
      async connect() {
        const client = await q.connect();
        return { ...withTypes(client), release: () => client.release() };
      },
      end: async () => {},
    } as unknown as PostgresPool;
  }
  return { connect: async () => ({ ...withTypes(q), release: () => {} }), end: async () => {} } as unknown as PostgresPool;
}

/** `q`: the pool (transactional takes a client of it), or one client (statements only). */
/** No entity metadata (MikroORM cannot load here): one shared empty list, so query(em) builds its plugin once. */
const NO_ENTITIES: unknown[] = [];

export function pgEm(q: pg.Pool | pg.PoolClient): EntityManager {
  let kysely: Kysely<unknown> | undefined;
  const em = {
    getMetadata: () => NO_ENTITIES,
    getPlatform: () => ({}),
    async execute(sql: string, params: unknown[] = []) {
      let n = 0;
      return (await q.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows;
    },
    getKysely() {
      return kysely ??= new Kysely({ dialect: new PostgresDialect({ pool: kyselyPool(q) }) });
    },
    async transactional<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
      if (!('totalCount' in q)) throw new Error('pgEm: transactional needs the pool, not one of its clients');
      const client = await q.connect();
      try {
        await client.query('BEGIN');
        const result = await work(pgEm(client));
        await client.query('COMMIT');
        return result;
      } catch (e) {
        await client.query('ROLLBACK');
        throw e;
      } finally {
        client.release();
      }
    },
  };
  return em as unknown as EntityManager;
}
