// The auth_throttle table: failed password attempts per key (attempt-throttle.ts decides). Every
// change is one statement, an UPSERT or a conditional DELETE: no read-modify-write.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type ExpressionBuilder } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import type { ThrottleKey } from './attempt-throttle.ts';

/** The throttle's constants (attempt-throttle.ts), never input: the delays are written into the statements. */
export type Schedule = { free: number; maxDelay: number; forgetAfter: number };

// When the key of row `t` may try again: `free` failures free, then 2^(failures - free) seconds
// after the last failure, capped at `maxDelay`. Arithmetic on intervals: a fragment.
const nextAllowed = (s: Schedule) => sql<Date>`(t.last_failure_at + make_interval(secs => CASE WHEN t.failures < ${sql.lit(s.free)} THEN 0
  ELSE least(${sql.lit(s.maxDelay)}, power(2, least(t.failures - ${sql.lit(s.free)}, 30))) END))`;
const waitSeconds = (s: Schedule) => sql<number>`extract(epoch FROM ${nextAllowed(s)} - now())::float8`;

/** The table as `t`, the name the statements give it. */
type AsT = Database & { t: Database['auth_throttle'] };
const isKey = (k: ThrottleKey) => (eb: ExpressionBuilder<AsT, 't'>) =>
  eb.and([eb('t.scope', '=', k.scope), eb('t.subject', '=', k.subject), eb('t.source', '=', k.source)]);

/** Seconds until the key may try again (negative once it may), or undefined when it has no failures. */
export async function throttleWait(em: EntityManager, s: Schedule, k: ThrottleKey): Promise<number | undefined> {
  const row = await query(em).selectFrom('auth_throttle as t').select(waitSeconds(s).as('wait')).where(isKey(k)).executeTakeFirst();
  return row?.wait;
}

/**
 * Counts a failure (starting again from one after `forgetAfter` seconds without any); the wait
 * that was running before it, read in the same statement (null when the key had no row).
 */
export async function countFailure(em: EntityManager, s: Schedule, k: ThrottleKey): Promise<number | null | undefined> {
  const row = await query(em)
    .with('before', (db) => db.selectFrom('auth_throttle as t').select(waitSeconds(s).as('wait')).where(isKey(k)))
    .with('counted', (db) => db.insertInto('auth_throttle')
      .values({ scope: k.scope, subject: k.subject, source: k.source, failures: 1, last_failure_at: sql<Date>`now()` })
      .onConflict((oc) => oc.columns(['scope', 'subject', 'source']).doUpdateSet({
        failures: sql<number>`CASE WHEN auth_throttle.last_failure_at < now() - make_interval(secs => ${s.forgetAfter}) THEN 1 ELSE auth_throttle.failures + 1 END`,
        last_failure_at: sql<Date>`now()`,
      }))
      .returning(sql<number>`1`.as('one')))
    .selectFrom('counted')
    .select((eb) => eb.selectFrom('before').select('wait').as('wait'))
    .executeTakeFirst();
  return row?.wait;
}

/**
 * Clears the key unless it is waiting; the wait still running (null when none), read in the same
 * statement. The DELETE and the read see the same snapshot, so a cleared key reads as not waiting.
 */
export async function clearUnlessWaiting(em: EntityManager, s: Schedule, k: ThrottleKey): Promise<number | null | undefined> {
  const row = await query(em)
    .with('cleared', (db) => db.deleteFrom('auth_throttle as t').where(isKey(k)).where(nextAllowed(s), '<=', sql<Date>`now()`).returning(sql<number>`1`.as('one')))
    .selectNoFrom((eb) => eb.selectFrom('auth_throttle as t').select(waitSeconds(s).as('wait'))
      .where(isKey(k)).where(nextAllowed(s), '>', sql<Date>`now()`).as('wait'))
    .executeTakeFirst();
  return row?.wait;
}

export async function deleteThrottleKey(em: EntityManager, k: ThrottleKey): Promise<void> {
  await query(em).deleteFrom('auth_throttle as t').where(isKey(k)).execute();
}

/** Drops rows nobody has failed on for `forgetAfter` seconds; how many went. */
export async function pruneThrottle(em: EntityManager, forgetAfterSeconds: number): Promise<number> {
  const r = await query(em).deleteFrom('auth_throttle')
    .where('last_failure_at', '<', sql<Date>`now() - make_interval(secs => ${forgetAfterSeconds})`).executeTakeFirst();
  return Number(r.numDeletedRows);
}
