// The statements behind the nightly credit job (credit-expiry.ts): lots that have expired with
// something left, and lots about to expire that have not had a reminder for a threshold yet.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import { spendableOf } from './credit-repository.ts';

export type ExpiringLot = { id: string; org_id: string; remaining_micros: number; expires_at: Date };

/** Up to `limit` lots past their expiry with something left. */
export async function expiredLots(em: EntityManager, limit: number): Promise<ExpiringLot[]> {
  const rows = await query(em).selectFrom('credit_lots').select(['id', 'org_id', 'remaining_micros', 'expires_at'])
    .where('remaining_micros', '>', 0).where('expires_at', '<=', sql<Date>`now()`).orderBy('expires_at').orderBy('id').limit(limit).execute();
  return rows.map((r) => ({ ...r, remaining_micros: Number(r.remaining_micros) }));
}

/**
 * Writes the lot's remainder off with an `expiry` ledger row, under the organization's account
 * lock (as every credit change); false when another run already had (its remainder is 0).
 */
export async function expireLot(em: EntityManager, lotId: string, orgId: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    await query(tx).selectFrom('org_billing_accounts').select('org_id').where('org_id', '=', orgId).forUpdate().executeTakeFirst();
    const lot = await query(tx).selectFrom('credit_lots').select(['remaining_micros', 'created_at']).where('id', '=', lotId)
      .where('remaining_micros', '>', 0).where('expires_at', '<=', sql<Date>`now()`).forUpdate().executeTakeFirst();
    if (!lot) return false;
    const remaining = Number(lot.remaining_micros);
    await query(tx).updateTable('credit_lots').set({ remaining_micros: 0 }).where('id', '=', lotId).execute();
    await query(tx).insertInto('credit_ledger').values({
      id: randomUUID(), org_id: orgId, type: 'expiry', amount_micros: -remaining, balance_after_micros: await spendableOf(tx, orgId),
      description: `Credits bought on ${lot.created_at.toISOString().slice(0, 10)} expired`, lot_id: lotId,
      created_at: sql<Date>`clock_timestamp()`,
    }).execute();
    return true;
  });
}

/** Up to `limit` lots with something left expiring within `days` that have had no reminder for that threshold. */
export async function lotsToRemind(em: EntityManager, days: number, limit: number): Promise<ExpiringLot[]> {
  const rows = await query(em).selectFrom('credit_lots as l').select(['l.id', 'l.org_id', 'l.remaining_micros', 'l.expires_at'])
    .where('l.remaining_micros', '>', 0).where('l.expires_at', '>', sql<Date>`now()`)
    .where('l.expires_at', '<=', sql<Date>`now() + make_interval(days => ${days})`)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('credit_reminders as r').select('r.lot_id').whereRef('r.lot_id', '=', 'l.id').where('r.days_before', '=', days))))
    .orderBy('l.expires_at').orderBy('l.id').limit(limit).execute();
  return rows.map((r) => ({ ...r, remaining_micros: Number(r.remaining_micros) }));
}

/** Records the reminders for `thresholds` of the lot; false when the first one was already there (another run mailed). */
export async function takeReminder(tx: EntityManager, lotId: string, thresholds: number[]): Promise<boolean> {
  const rows = await query(tx).insertInto('credit_reminders').values(thresholds.map((d) => ({ lot_id: lotId, days_before: d })))
    .onConflict((oc) => oc.doNothing()).returning('days_before').execute();
  return rows.some((r) => r.days_before === thresholds[0]);
}

/** The organization's owners' addresses (active accounts). */
export async function ownerEmails(em: EntityManager, orgId: string): Promise<string[]> {
  const rows = await query(em).selectFrom('users').select('email').where('org_id', '=', orgId).where('role', '=', 'owner')
    .where('status', '=', 'active').orderBy('email').execute();
  return rows.map((r) => r.email);
}
