// Hot-path reads (profile, API-key lookup) go straight to the pg Pool that MikroORM itself uses:
// one prepared statement, no query builder or hydration. Everything else uses MikroORM.
import type pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';

export type HotReads = { one<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T | undefined> };

export async function hotReads(orm: MikroORM): Promise<HotReads> {
  const pool = await orm.em.getConnection().getNativeClient() as pg.Pool;
  return {
    // `name` makes Postgres keep the parsed plan per connection.
    async one<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T | undefined> {
      const r = await pool.query<T>({ name, text, values });
      return r.rows[0] as T | undefined;
    },
  };
}
