// The rate_limits table (migration 0032): rate-limiter-flexible's RateLimiterPostgres keeps one row
// per limit and key (points taken, window end in ms) and writes its own statements (one upsert per
// lease). They run on the hot pool as named statements, like the other per-request statements.
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { HotReads } from '../../db/hot-reads.ts';

export const RATE_LIMITS_TABLE = 'rate_limits';

type Statement = { name?: string; text: string; values?: unknown[] };

/** A store limiter on the table; `sweeps`: this one deletes windows that ended an hour ago (every 5 minutes). */
export function postgresLimiter(hot: HotReads, o: { keyPrefix: string; points: number; duration: number; sweeps: boolean }): RateLimiterPostgres {
  // The library calls `query()` of a pg Pool; the hot pool answers the same way.
  const client = {
    async query({ name, text, values = [] }: Statement) {
      const rows = name ? await hot.all(name, text, values) : await hot.rows(text, values);
      return { rows, rowCount: rows.length };
    },
  };
  return new RateLimiterPostgres({
    storeClient: client, storeType: 'pool', tableName: RATE_LIMITS_TABLE, tableCreated: true, clearExpiredByTimeout: o.sweeps,
    keyPrefix: o.keyPrefix, points: o.points, duration: o.duration,
  });
}
