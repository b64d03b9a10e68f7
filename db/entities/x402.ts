// x402 pay-per-request (migration 0049; domain/billing/x402-*.ts): the platform's payment
// settings (one row) and the payment proofs requests presented, keyed by digest (single use).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './accounts.ts';
import { Organization } from './org.ts';

export const X402Config = defineEntity({
  name: 'X402Config',
  tableName: 'x402_config',
  properties: {
    id: p.smallint().primary().autoincrement(false).default(1).check('id = 1'),
    enabled: p.boolean().default(false),
    pay_to: p.text().nullable(),
    network: p.text().default('eip155:8453'),
    asset: p.text().default('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
    asset_name: p.text().default('USD Coin'),
    asset_version: p.text().default('2'),
    asset_decimals: p.integer().default(6).check('asset_decimals >= 0 AND asset_decimals <= 18'),
    facilitator_url: p.text().nullable(),
    max_timeout_seconds: p.integer().default(60).check('max_timeout_seconds >= 10 AND max_timeout_seconds <= 3600'),
    updated_by: () => p.manyToOne(User).mapToPk().fieldName('updated_by').nullable().deleteRule('set null'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
});
export type X402ConfigRow = InferEntity<typeof X402Config>;

export const X402Payment = defineEntity({
  name: 'X402Payment',
  tableName: 'x402_payments',
  properties: {
    digest: p.text().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').nullable().deleteRule('set null'),
    route: p.text(),
    amount: p.text(),
    network: p.text(),
    payer: p.text().nullable(),
    status: p.text().default('verifying').check("status IN ('verifying', 'settled', 'settle_failed')"),
    payment: p.json<Record<string, unknown>>(),
    requirements: p.json<Record<string, unknown>>(),
    transaction: p.text().nullable(),
    attempts: p.integer().default(0),
    last_error: p.text().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    settled_at: p.datetime().nullable(),
  },
  indexes: [
    { name: 'x402_payments_status_idx', properties: ['status', 'created_at'] },
    /** Retention's prune of settled proofs (migration 0051). */
    { name: 'x402_payments_settled_idx', properties: ['settled_at'], where: "status = 'settled'" },
  ],
});
export type X402PaymentRow = InferEntity<typeof X402Payment>;
