// The statements behind the payment processor (migration 0046; billing-checkout.ts and
// billing-webhooks.ts decide): the organization's customer at the processor, events taken once by
// their id, and the plan a subscription sets.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import type { BillingInterval, PaidTier } from './payment-processor.ts';

/** The organization's processor customer (null: none yet); undefined: no such organization. */
export async function customerOf(em: EntityManager, orgId: string): Promise<{ customerId: string | null } | undefined> {
  const row = await query(em).selectFrom('organizations as o').leftJoin('org_billing_accounts as a', 'a.org_id', 'o.id')
    .select('a.processor_customer_id').where('o.id', '=', orgId).executeTakeFirst();
  return row ? { customerId: row.processor_customer_id ?? null } : undefined;
}

export async function saveCustomer(em: EntityManager, orgId: string, customerId: string): Promise<void> {
  await query(em).insertInto('org_billing_accounts').values({ org_id: orgId, processor_customer_id: customerId })
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ processor_customer_id: customerId, updated_at: sql<Date>`now()` })).execute();
}

/** Records the event as taken; false when it had been (a retry or a replay). */
export async function takeEvent(tx: EntityManager, eventId: string, type: string, orgId: string | null): Promise<boolean> {
  const exists = orgId ? await query(tx).selectFrom('organizations').select('id').where('id', '=', orgId).executeTakeFirst() : undefined;
  const row = await query(tx).insertInto('processor_events').values({ event_id: eventId, type, org_id: exists ? orgId : null })
    .onConflict((oc) => oc.doNothing()).returning('event_id').executeTakeFirst();
  return row !== undefined;
}

/** Whether the organization exists (an event may name one deleted since). */
export async function organizationExists(em: EntityManager, orgId: string): Promise<boolean> {
  return (await query(em).selectFrom('organizations').select('id').where('id', '=', orgId).executeTakeFirst()) !== undefined;
}

/** A subscription in force: its tier until the period's end, and its interval. */
export async function applySubscription(tx: EntityManager, orgId: string, tier: PaidTier, periodEnd: Date, interval: BillingInterval): Promise<void> {
  await query(tx).updateTable('organizations').set({ billing_tier: tier, billing_period_end: periodEnd }).where('id', '=', orgId).execute();
  await query(tx).insertInto('org_billing_accounts').values({ org_id: orgId, billing_interval: interval })
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ billing_interval: interval, updated_at: sql<Date>`now()` })).execute();
}

/** The subscription is over: free, no period, no interval. */
export async function endSubscription(tx: EntityManager, orgId: string): Promise<void> {
  await query(tx).updateTable('organizations').set({ billing_tier: 'free', billing_period_end: null }).where('id', '=', orgId).execute();
  await query(tx).updateTable('org_billing_accounts').set({ billing_interval: null, updated_at: sql<Date>`now()` }).where('org_id', '=', orgId).execute();
}

/** The account e-mail checkout pre-fills: the caller's. */
export async function emailOf(em: EntityManager, userId: string): Promise<string> {
  const row = await query(em).selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
  return row?.email ?? '';
}
