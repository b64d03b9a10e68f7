// Device login (migration 0029; device-login.ts decides): one row per device code, codes and e-mail
// as HMAC digests. Each move is one conditional statement: a decision only on a pending, unexpired
// code; handing out the token only on an approved, unexpired one (so two parallel polls can never
// both get it). A poll locks its row first, so its pacing (slow_down) is read and written at once.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';

export type StoredStatus = 'pending' | 'approved' | 'denied' | 'consumed';

/** A code as the approval and status endpoints see it. */
export type DeviceLoginByUserCode = {
  id: string; client_id: string; email_digest: string | null; status: StoredStatus; expires_at: Date; expired: boolean;
};

/** A code as its poll sees it, locked for the rest of the transaction. */
export type PolledDeviceLogin = {
  id: string; client_id: string; status: StoredStatus; user_id: string | null; expired: boolean; too_fast: boolean; interval_seconds: number;
};

/**
 * Stores a new code (dropping codes that expired more than `keepExpiredSeconds` ago on the way);
 * false when its user code (or device code) is already taken, so the caller draws again.
 */
export async function insertDeviceLogin(tx: EntityManager, d: {
  deviceDigest: string; userDigest: string; clientId: string; emailDigest: string | null; ttlSeconds: number; intervalSeconds: number; keepExpiredSeconds: number;
}): Promise<string | undefined> {
  const q = query(tx);
  await q.deleteFrom('device_logins').where('expires_at', '<', sql<Date>`now() - make_interval(secs => ${d.keepExpiredSeconds})`).execute();
  const row = await q.insertInto('device_logins').values({
    id: randomUUID(), device_code_digest: d.deviceDigest, user_code_digest: d.userDigest, client_id: d.clientId,
    email_digest: d.emailDigest, interval_seconds: d.intervalSeconds, expires_at: sql<Date>`now() + make_interval(secs => ${d.ttlSeconds})`,
  }).onConflict((oc) => oc.doNothing()).returning('id').executeTakeFirst();
  return row?.id;
}

export async function deviceLoginByUserCode(em: EntityManager, userDigest: string): Promise<DeviceLoginByUserCode | undefined> {
  return query(em).selectFrom('device_logins')
    .select(['id', 'client_id', 'email_digest', 'status', 'expires_at', sql<boolean>`expires_at <= now()`.as('expired')])
    .where('user_code_digest', '=', userDigest).executeTakeFirst();
}

/**
 * Approves or denies a pending, unexpired code on behalf of `userId`, only if it was asked for
 * no e-mail or for `emailDigest`; false when it was decided meanwhile, expired or is not theirs.
 */
export async function decideDeviceLogin(tx: EntityManager, id: string, userId: string, emailDigest: string, to: 'approved' | 'denied'): Promise<boolean> {
  const row = await query(tx).updateTable('device_logins')
    .set({ status: to, user_id: userId, decided_at: sql<Date>`now()` })
    .where('id', '=', id).where('status', '=', 'pending').where('expires_at', '>', sql<Date>`now()`)
    .where((eb) => eb.or([eb('email_digest', 'is', null), eb('email_digest', '=', emailDigest)]))
    .returning('id').executeTakeFirst();
  return row !== undefined;
}

/**
 * Locks the code a poll names and reads its state; `too_fast` when the previous poll was less
 * than its interval ago (one second of grace for timers and transit).
 */
export async function lockForPoll(tx: EntityManager, deviceDigest: string): Promise<PolledDeviceLogin | undefined> {
  return query(tx).selectFrom('device_logins')
    .select(['id', 'client_id', 'status', 'user_id', 'interval_seconds', sql<boolean>`expires_at <= now()`.as('expired'),
      sql<boolean>`coalesce(last_polled_at > now() - make_interval(secs => interval_seconds - 1), false)`.as('too_fast')])
    .where('device_code_digest', '=', deviceDigest).forUpdate().executeTakeFirst();
}

/** Records a poll of a locked code; a poll that came too early adds `slowDownSeconds` to its interval. */
export async function recordPoll(tx: EntityManager, id: string, slowDownSeconds: number): Promise<void> {
  await query(tx).updateTable('device_logins')
    .set({ last_polled_at: sql<Date>`now()`, interval_seconds: sql<number>`interval_seconds + ${slowDownSeconds}` })
    .where('id', '=', id).execute();
}

/** Hands out an approved, unexpired code's token: the user who approved it, or undefined when it is not (any more) to be had. */
export async function consumeDeviceLogin(tx: EntityManager, id: string): Promise<string | undefined> {
  const row = await query(tx).updateTable('device_logins').set({ status: 'consumed', consumed_at: sql<Date>`now()` })
    .where('id', '=', id).where('status', '=', 'approved').where('expires_at', '>', sql<Date>`now()`)
    .returning('user_id').executeTakeFirst();
  return row?.user_id ?? undefined;
}
