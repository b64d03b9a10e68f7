// The statements behind x402 (migration 0049): the platform's payment settings (one row) and the
// payment proofs, claimed by digest before verification so a proof pays for one request only.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import type { X402Settings } from './x402-requirements.ts';

export const X402_DEFAULTS: X402Settings = {
  enabled: false, payTo: null, network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  assetName: 'USD Coin', assetVersion: '2', assetDecimals: 6, facilitatorUrl: null, maxTimeoutSeconds: 60,
};

export async function loadX402Settings(em: EntityManager): Promise<X402Settings> {
  const r = await query(em).selectFrom('x402_config').selectAll().where('id', '=', 1).executeTakeFirst();
  if (!r) return X402_DEFAULTS;
  return {
    enabled: r.enabled, payTo: r.pay_to, network: r.network, asset: r.asset, assetName: r.asset_name,
    assetVersion: r.asset_version, assetDecimals: r.asset_decimals, facilitatorUrl: r.facilitator_url, maxTimeoutSeconds: r.max_timeout_seconds,
  };
}

export async function saveX402Settings(em: EntityManager, s: X402Settings, by: string): Promise<void> {
  const row = {
    enabled: s.enabled, pay_to: s.payTo, network: s.network, asset: s.asset, asset_name: s.assetName, asset_version: s.assetVersion,
    asset_decimals: s.assetDecimals, facilitator_url: s.facilitatorUrl, max_timeout_seconds: s.maxTimeoutSeconds, updated_by: by,
  };
  await query(em).insertInto('x402_config').values({ id: 1, ...row })
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...row, updated_at: sql<Date>`now()` })).execute();
}

export type PaymentClaim = {
  digest: string; orgId: string | null; route: string; amount: string; network: string;
  payment: Record<string, unknown>; requirements: Record<string, unknown>;
};

/** Claims a proof for one request; false when it was claimed before (used, or in use). */
export async function claimPayment(em: EntityManager, c: PaymentClaim): Promise<boolean> {
  const row = await query(em).insertInto('x402_payments').values({
    digest: c.digest, org_id: c.orgId, route: c.route, amount: c.amount, network: c.network, payment: c.payment, requirements: c.requirements,
  }).onConflict((oc) => oc.column('digest').doNothing()).returning('digest').executeTakeFirst();
  return row !== undefined;
}

/** Gives a proof back (it paid for nothing: invalid, or its request failed) while it is unsettled. */
export async function releasePayment(em: EntityManager, digest: string): Promise<void> {
  await query(em).deleteFrom('x402_payments').where('digest', '=', digest).where('status', '=', 'verifying').execute();
}

export async function recordPayer(em: EntityManager, digest: string, orgId: string | null, payer: string | null): Promise<void> {
  await query(em).updateTable('x402_payments').set({ org_id: orgId, payer }).where('digest', '=', digest).execute();
}

export async function markSettled(em: EntityManager, digest: string, transaction: string | null): Promise<void> {
  await query(em).updateTable('x402_payments')
    .set({ status: 'settled', transaction, settled_at: sql<Date>`now()`, attempts: sql<number>`attempts + 1`, last_error: null })
    .where('digest', '=', digest).where('status', '<>', 'settled').execute();
}

export async function markSettleFailed(em: EntityManager, digest: string, error: string): Promise<void> {
  await query(em).updateTable('x402_payments')
    .set({ status: 'settle_failed', attempts: sql<number>`attempts + 1`, last_error: error.slice(0, 500) })
    .where('digest', '=', digest).where('status', '<>', 'settled').execute();
}

export type StoredPayment = { digest: string; status: string; payment: Record<string, unknown>; requirements: Record<string, unknown>; transaction: string | null };

export async function paymentByDigest(em: EntityManager, digest: string): Promise<StoredPayment | undefined> {
  return query(em).selectFrom('x402_payments').select(['digest', 'status', 'payment', 'requirements', 'transaction'])
    .where('digest', '=', digest).executeTakeFirst();
}
