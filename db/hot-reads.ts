// Hot-path reads (profile, API-key lookup) go straight to the pg Pool that MikroORM itself uses:
// one prepared statement, no query builder or hydration. Everything else uses MikroORM.
import type pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';

export type HotReads = {
  /** One row of a named (prepared) statement. */
  one<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T | undefined>;
  /** All rows of an unnamed statement (shapes that vary, such as multi-row inserts). */
  rows<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]>;
};

export async function hotReads(orm: MikroORM): Promise<HotReads> {
  const pool = await orm.em.getConnection().getNativeClient() as pg.Pool;
  return {
    // `name` makes Postgres keep the parsed plan per connection.
    async one<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T | undefined> {
      const r = await pool.query<T>({ name, text, values });
      return r.rows[0] as T | undefined;
    },
    async rows<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]> {
      return (await pool.query<T>(text, values)).rows;
    },
  };
}
