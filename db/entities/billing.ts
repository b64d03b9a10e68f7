// Billing: the monthly request usage and the budget leased to api processes (migration 0043;
// domain/billing), and the operator's overrides of an organization's limits (migration 0044;
// domain/limits); prepaid credits (migration 0045; domain/billing/credit-*.ts).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './accounts.ts';
import { Organization } from './org.ts';

export const OrgRequestUsage = defineEntity({
  name: 'OrgRequestUsage',
  tableName: 'org_request_usage',
  properties: {
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').primary().deleteRule('cascade'),
    /** The first day of the UTC month. */
    month: p.date().primary().check('extract(day FROM month) = 1'),
    /** Requests handed out to api processes as budget this month (never above the quota). */
    leased: p.bigint('number').defaultRaw('0').check('leased >= 0'),
    /** Requests the api processes reported having served. */
    used: p.bigint('number').defaultRaw('0').check('used >= 0'),
    /** Of `used`: requests over the quota paid with credits (migration 0045), and what they cost in micro-dollars. */
    paid: p.bigint('number').defaultRaw('0').check('paid >= 0'),
    paid_micros: p.bigint('number').defaultRaw('0').check('paid_micros >= 0'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
  primaryKeys: ['org_id', 'month'],
});
export type OrgRequestUsageRow = InferEntity<typeof OrgRequestUsage>;

export const OrgLimitOverride = defineEntity({
  name: 'OrgLimitOverride',
  tableName: 'org_limit_overrides',
  properties: {
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').primary().deleteRule('cascade').updateRule('no action'),
    /** Monthly request quota in place of the tier's (the reference's free_tier_override); null: the tier's. */
    request_quota: p.bigint('number').nullable().check('request_quota >= 0'),
    /** Sponsored: no monthly request quota at all. */
    is_sponsored: p.boolean().default(false),
    max_vaults: p.integer().nullable().check('max_vaults >= 0'),
    max_secrets: p.integer().nullable().check('max_secrets >= 0'),
    max_agents: p.integer().nullable().check('max_agents >= 0'),
    max_automations: p.integer().nullable().check('max_automations >= 0'),
    /** After this the override is no longer in force; null: until replaced. */
    expires_at: p.datetime().nullable(),
    updated_by: () => p.manyToOne(User).mapToPk().fieldName('updated_by').nullable().deleteRule('set null'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
});
export type OrgLimitOverrideRow = InferEntity<typeof OrgLimitOverride>;

export const OrgBillingAccount = defineEntity({
  name: 'OrgBillingAccount',
  tableName: 'org_billing_accounts',
  properties: {
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').primary().deleteRule('cascade').updateRule('no action'),
    /** How a request over the quota is paid. */
    overage_method: p.text().default('credits').check("overage_method IN ('credits','x402')"),
    /** Credit budget handed out to api processes and not settled yet (micro-dollars). */
    credit_leased_micros: p.bigint('number').defaultRaw('0').check('credit_leased_micros >= 0'),
    updated_at: p.datetime().defaultRaw('now()'),
    /** The organization's customer at the payment processor (migration 0046). */
    processor_customer_id: p.text().nullable(),
    /** The interval of the subscription the processor holds. */
    billing_interval: p.text().nullable().check("billing_interval IN ('monthly','yearly')"),
  },
  indexes: [{ name: 'org_billing_accounts_customer', expression: 'CREATE UNIQUE INDEX org_billing_accounts_customer ON org_billing_accounts (processor_customer_id) WHERE processor_customer_id IS NOT NULL' }],
});
export type OrgBillingAccountRow = InferEntity<typeof OrgBillingAccount>;

export const CreditLot = defineEntity({
  name: 'CreditLot',
  tableName: 'credit_lots',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    amount_micros: p.bigint('number').check('amount_micros > 0'),
    remaining_micros: p.bigint('number').check('remaining_micros >= 0'),
    expires_at: p.datetime(),
    /** The processor's payment: a top-up lands once. */
    external_ref: p.text().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [
    { name: 'credit_lots_external_ref', expression: 'CREATE UNIQUE INDEX credit_lots_external_ref ON credit_lots (org_id, external_ref) WHERE external_ref IS NOT NULL' },
    { name: 'credit_lots_spendable', properties: ['org_id', 'expires_at', 'created_at'], where: 'remaining_micros > 0' },
  ],
  checks: [{ name: 'credit_lots_check', expression: 'remaining_micros <= amount_micros' }],
});
export type CreditLotRow = InferEntity<typeof CreditLot>;

export const CreditLedgerEntry = defineEntity({
  name: 'CreditLedgerEntry',
  tableName: 'credit_ledger',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    type: p.text().check("type IN ('topup','usage','expiry')"),
    /** Signed micro-dollars: + a top-up, − usage or expiry. */
    amount_micros: p.bigint('number'),
    balance_after_micros: p.bigint('number').check('balance_after_micros >= 0'),
    description: p.text(),
    lot_id: () => p.manyToOne(CreditLot).mapToPk().fieldName('lot_id').nullable().deleteRule('set null'),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'credit_ledger_by_org', properties: ['org_id', 'created_at', 'id'] }],
});
export type CreditLedgerEntryRow = InferEntity<typeof CreditLedgerEntry>;

export const ProcessorEvent = defineEntity({
  name: 'ProcessorEvent',
  tableName: 'processor_events',
  properties: {
    /** The payment processor's event id: each is taken once. */
    event_id: p.text().primary(),
    type: p.text(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').nullable().deleteRule('set null'),
    received_at: p.datetime().defaultRaw('now()'),
  },
});
export type ProcessorEventRow = InferEntity<typeof ProcessorEvent>;

export const CreditReminder = defineEntity({
  name: 'CreditReminder',
  tableName: 'credit_reminders',
  properties: {
    lot_id: () => p.manyToOne(CreditLot).mapToPk().fieldName('lot_id').primary().deleteRule('cascade'),
    /** The threshold the reminder was for: 30 or 7 days before the lot expires. */
    days_before: p.integer().primary().check('days_before IN (7, 30)'),
    sent_at: p.datetime().defaultRaw('now()'),
  },
  primaryKeys: ['lot_id', 'days_before'],
});
export type CreditReminderRow = InferEntity<typeof CreditReminder>;

