// The statements behind prepaid credits (migration 0045; credit-meter.ts and credit-commands.ts
// decide). Every change to an organization's credits runs under its billing account row's lock,
// so lots are spent first-in first-out without locking them one by one, and the balance the
// ledger records after each change is exact.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';

/** Credits last this long after their purchase. */
export const CREDIT_LIFETIME = '12 months';

export type OverageMethod = 'credits' | 'x402';

/** What one process reports for an organization: requests paid with credits, and budget used and given back. */
export type CreditSettlement = { orgId: string; month: string; paid: number; spentMicros: number; returnedMicros: number };

export type LedgerEntry = {
  id: string; type: 'topup' | 'usage' | 'expiry'; amount_micros: number; balance_after_micros: number; description: string; created_at: Date;
};

/**
 * Every live api process settles what it spends within about a second and gives idle budget back
 * after 10 s, each time touching the account row. Leases out on a row untouched this long belong
 * to processes that died: they no longer count against the balance.
 */
export const STRANDED_LEASE_SECONDS = 60;

type Account = { overage_method: OverageMethod; credit_leased_micros: number; stranded: boolean };

/** The account row, created on first use, locked until the transaction ends. */
async function lockAccount(tx: EntityManager, orgId: string): Promise<Account | undefined> {
  const q = query(tx);
  await q.insertInto('org_billing_accounts').values({ org_id: orgId }).onConflict((oc) => oc.doNothing()).execute();
  const row = await q.selectFrom('org_billing_accounts')
    .select(['overage_method', 'credit_leased_micros',
      sql<boolean>`updated_at < now() - make_interval(secs => ${STRANDED_LEASE_SECONDS})`.as('stranded')])
    .where('org_id', '=', orgId).forUpdate().executeTakeFirst();
  return row ? { ...row, overage_method: row.overage_method as OverageMethod, credit_leased_micros: Number(row.credit_leased_micros) } : undefined;
}

/** Micro-dollars left in the organization's lots that have not expired. */
export async function spendableOf(em: EntityManager, orgId: string): Promise<number> {
  const row = await query(em).selectFrom('credit_lots').select(sql<string>`coalesce(sum(remaining_micros), 0)`.as('n'))
    .where('org_id', '=', orgId).where('remaining_micros', '>', 0).where('expires_at', '>', sql<Date>`now()`).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Adds a lot of `micros` expiring CREDIT_LIFETIME from now, and its ledger row. With an
 * `externalRef` (the processor's payment) it lands once: false when it already has.
 */
export async function addCredits(em: EntityManager, orgId: string, micros: number, opts: { externalRef?: string; description: string }): Promise<boolean> {
  return em.transactional(async (tx) => {
    if (!(await lockAccount(tx, orgId))) return false;
    const lotId = randomUUID();
    const inserted = await tx.execute(`INSERT INTO credit_lots (id, org_id, amount_micros, remaining_micros, expires_at, external_ref)
      VALUES (?, ?, ?, ?, now() + interval '${CREDIT_LIFETIME}', ?)
      ON CONFLICT (org_id, external_ref) WHERE external_ref IS NOT NULL DO NOTHING RETURNING id`,
    [lotId, orgId, micros, micros, opts.externalRef ?? null]);
    if (inserted.length === 0) return false;
    await appendLedger(tx, orgId, 'topup', micros, opts.description, lotId);
    return true;
  });
}

/**
 * Leases up to `want` micro-dollars of credit to an api process: only while the organization pays
 * overage with credits, and only what the balance holds beyond every lease already out (leases of
 * dead processes aside: STRANDED_LEASE_SECONDS). Answers what was granted and the balance beyond
 * the leases after it.
 */
export async function leaseCredits(em: EntityManager, orgId: string, want: number): Promise<{ granted: number; unleased: number }> {
  return em.transactional(async (tx) => {
    const account = await lockAccount(tx, orgId);
    if (!account || account.overage_method !== 'credits') return { granted: 0, unleased: 0 };
    const out = account.stranded ? 0 : account.credit_leased_micros;
    const available = Math.max(0, (await spendableOf(tx, orgId)) - out);
    const granted = Math.min(want, available);
    if (granted > 0 || account.stranded) {
      await query(tx).updateTable('org_billing_accounts').set({ credit_leased_micros: out + granted, updated_at: sql<Date>`now()` })
        .where('org_id', '=', orgId).execute();
    }
    return { granted, unleased: available - granted };
  });
}

/**
 * Settles what processes spent from their leases and gives back what they did not: the spent
 * micro-dollars come off the lots first-in first-out, one ledger row per organization and report,
 * and the month's usage row counts the paid requests and their cost.
 */
export async function settleCredits(em: EntityManager, rows: readonly CreditSettlement[]): Promise<void> {
  if (rows.length === 0) return;
  await em.transactional(async (tx) => {
    for (const r of [...rows].sort((a, b) => (a.orgId < b.orgId ? -1 : 1))) { // one lock order for every process
      const account = await lockAccount(tx, r.orgId);
      if (!account) continue; // the organization is gone
      await query(tx).updateTable('org_billing_accounts')
        .set({ credit_leased_micros: sql<number>`greatest(credit_leased_micros - ${r.spentMicros + r.returnedMicros}, 0)`, updated_at: sql<Date>`now()` })
        .where('org_id', '=', r.orgId).execute();
      if (r.spentMicros > 0) {
        await spendFifo(tx, r.orgId, r.spentMicros);
        await appendLedger(tx, r.orgId, 'usage', -r.spentMicros, `${r.paid} request${r.paid === 1 ? '' : 's'} over the monthly quota`, null);
      }
      if (r.paid > 0) {
        await tx.execute(`INSERT INTO org_request_usage AS u (org_id, month, used, paid, paid_micros) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (org_id, month) DO UPDATE SET used = u.used + EXCLUDED.used, paid = u.paid + EXCLUDED.paid,
            paid_micros = u.paid_micros + EXCLUDED.paid_micros, updated_at = now()`, [r.orgId, r.month, r.paid, r.paid, r.spentMicros]);
      }
    }
  });
}

/** Takes `micros` off the spendable lots, earliest expiry first (under the account lock). */
async function spendFifo(tx: EntityManager, orgId: string, micros: number): Promise<void> {
  await tx.execute(`UPDATE credit_lots l SET remaining_micros = l.remaining_micros - LEAST(l.remaining_micros, ? - (c.running - l.remaining_micros))
    FROM (SELECT id, sum(remaining_micros) OVER (ORDER BY expires_at, created_at, id) AS running
          FROM credit_lots WHERE org_id = ? AND remaining_micros > 0 AND expires_at > now()) c
    WHERE l.id = c.id AND c.running - l.remaining_micros < ?`, [micros, orgId, micros]);
}

/** A ledger row, stamped with the time it is written under the account lock (not the transaction's start), so newest first is the order the balances followed. */
async function appendLedger(tx: EntityManager, orgId: string, type: LedgerEntry['type'], micros: number, description: string, lotId: string | null): Promise<void> {
  await query(tx).insertInto('credit_ledger').values({
    id: randomUUID(), org_id: orgId, type, amount_micros: micros, balance_after_micros: await spendableOf(tx, orgId), description, lot_id: lotId,
    created_at: sql<Date>`clock_timestamp()`,
  }).execute();
}

/** The balance and what of it expires within `days` (amount, earliest expiry). */
export async function balanceOf(em: EntityManager, orgId: string, days: number): Promise<{ balanceMicros: number; expiringMicros: number; earliestExpiry: Date | null }> {
  const row = await query(em).selectFrom('credit_lots').select([
    sql<string>`coalesce(sum(remaining_micros), 0)`.as('balance'),
    sql<string>`coalesce(sum(remaining_micros) FILTER (WHERE expires_at <= now() + make_interval(days => ${days})), 0)`.as('expiring'),
    sql<Date | null>`min(expires_at) FILTER (WHERE expires_at <= now() + make_interval(days => ${days}))`.as('earliest'),
  ]).where('org_id', '=', orgId).where('remaining_micros', '>', 0).where('expires_at', '>', sql<Date>`now()`).executeTakeFirstOrThrow();
  return { balanceMicros: Number(row.balance), expiringMicros: Number(row.expiring), earliestExpiry: row.earliest };
}

/** A page of the ledger, newest first. */
export async function ledgerPage(em: EntityManager, orgId: string, offset: number, limit: number): Promise<{ entries: LedgerEntry[]; total: number }> {
  const q = query(em);
  const entries = await q.selectFrom('credit_ledger').select(['id', 'type', 'amount_micros', 'balance_after_micros', 'description', 'created_at'])
    .where('org_id', '=', orgId).orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
  const total = await q.selectFrom('credit_ledger').select(sql<number>`count(*)::int`.as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow();
  return { entries: entries as LedgerEntry[], total: total.n };
}

export async function overageMethodOf(em: EntityManager, orgId: string): Promise<OverageMethod> {
  const row = await query(em).selectFrom('org_billing_accounts').select('overage_method').where('org_id', '=', orgId).executeTakeFirst();
  return (row?.overage_method as OverageMethod | undefined) ?? 'credits';
}

export async function setOverageMethod(em: EntityManager, orgId: string, method: OverageMethod): Promise<void> {
  await query(em).insertInto('org_billing_accounts').values({ org_id: orgId, overage_method: method })
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ overage_method: method, updated_at: sql<Date>`now()` })).execute();
}
