// The statement API the domain's repositories use (execute with `?` placeholders, transactional),
// over a pg pool or client of the test stack's Postgres: jest cannot load MikroORM (an ES module),
// and this is all the repository code asks of an EntityManager.
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';

/** `q`: the pool (transactional takes a client of it), or one client (statements only). */
export function pgEm(q: pg.Pool | pg.PoolClient): EntityManager {
  const em = {
    async execute(sql: string, params: unknown[] = []) {
      let n = 0;
      return (await q.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows;
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
