// Hot-path statements (secret read, profile, API-key lookup, audit append) go to a small pg Pool
// of their own: prepared statements, no query builder or hydration. Everything else uses MikroORM.
//
// Its sessions run with plan_cache_mode=force_generic_plan. Every hot statement is a lookup by
// key, so one generic plan per connection is right; left to itself, Postgres re-plans a
// statement for each execution while its tables are small or not yet analyzed, which made
// planning 80% of the secret read's cost in Postgres (0.35 ms against 0.06 ms per execution).
// Plans are still rebuilt when ANALYZE changes a table's statistics.
import pg from 'pg';
import { pipelinedClient } from './pipelined-client.ts';

export type HotReads = {
  /** One row of a named (prepared) statement. */
  one<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T | undefined>;
  /** All rows of a named (prepared) statement. */
  all<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]>;
  /**
   * All rows of a named statement sent on one pipelined connection: statements issued one after
   * another run in that order, without waiting for each other's round trips.
   */
  inOrder<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]>;
  /** All rows of an unnamed statement (shapes that vary). */
  rows<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]>;
  /**
   * Runs `work` in one transaction on one pooled connection, its named statements through `q`:
   * committed if `work` resolves, rolled back if it throws. For the rare path that must hold a row
   * lock across a statement (the audit chain's head when another process keeps moving it).
   */
  transaction<R>(work: (q: <T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) => Promise<T[]>) => Promise<R>): Promise<R>;
  close(): Promise<void>;
};

export function hotReads(databaseUrl: string, max = 10, applicationName = 'ocv'): HotReads {
  // node-pg reads `?host=/dir` in the URL as a Unix-socket directory, as libpq does.
  // ocv.outbox_notify=off: an event inserted here does not NOTIFY inside its transaction (see
  // migration 0023); its writer wakes the dispatcher after the commit (wakeOutbox, domain/events/outbox.ts).
  const session = { connectionString: databaseUrl, options: '-c plan_cache_mode=force_generic_plan -c ocv.outbox_notify=off' };
  // application_name tells these sessions apart in pg_stat_activity.
  const pool = new pg.Pool({ ...session, max, application_name: `${applicationName}-hot` });
  const ordered = pipelinedClient({ ...session, application_name: `${applicationName}-audit-append` });
  // An idle connection that the server drops must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return {
    // `name` makes Postgres keep the parsed statement and its plan per connection.
    async one<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T | undefined> {
      const r = await pool.query<T>({ name, text, values });
      return r.rows[0] as T | undefined;
    },
    async all<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]> {
      return (await pool.query<T>({ name, text, values })).rows;
    },
    inOrder: (name, text, values) => ordered.many(name, text, values),
    async rows<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]> {
      return (await pool.query<T>(text, values)).rows;
    },
    async transaction(work) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work(async (name, text, values) => (await client.query({ name, text, values })).rows);
        await client.query('COMMIT');
        return result;
      } catch (e) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => { broken = rollbackError; });
        throw e;
      } finally {
        client.release(broken); // a connection that could not roll back is closed, not reused
      }
    },
    close: async () => { await ordered.close(); await pool.end(); },
  };
}

/** `text` with its `?` placeholders (MikroORM's style) numbered `$1, $2 …` for node-pg. No `?` operators allowed. */
export function positional(text: string): string {
  let numbered = numberedTexts.get(text);
  if (numbered === undefined) {
    let n = 0;
    numbered = text.replace(/\?/g, () => `$${++n}`);
    numberedTexts.set(text, numbered);
  }
  return numbered;
}

/** Statement texts are constants of the code: a handful, kept once converted. */
const numberedTexts = new Map<string, string>();
