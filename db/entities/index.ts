// Every table the migrations create (db/migrations), as a MikroORM entity defined with
// defineEntity; test/integration/schema-entities.test.ts proves entities and migrated schema agree.
// The migrations stay the source of the schema: entities describe it, they never create it.
//
// Conventions, the same in every file:
// - Table names are the migrations' (`tableName`); property names are the column names
//   (snake_case), so an entity's inferred type has the shape of the rows the repositories read
//   today, and em.find(), em.getKysely() and raw SQL all spell a column the same way.
// - Foreign keys are many-to-one relations mapped to the primary key (`mapToPk()`): the property
//   holds the id, as the column does; the relation only declares the constraint and its ON DELETE
//   rule. Columns that point elsewhere without a constraint (org_id on several tables,
//   principal ids, ids in another organization's vault) are plain `uuid` properties.
// - timestamptz → Date (`p.datetime()`); date → 'YYYY-MM-DD' string (`p.date()`).
// - bigint (int8: sequence numbers, counters, chain ids, nonces, block numbers) → JS number
//   (`p.bigint('number')`): every such value stays below 2^53. numeric(78,0) / numeric(20,0)
//   (wei and gas amounts) → JS bigint (`p.bigint('bigint')` with the numeric column type).
// - jsonb → `p.json<T>()` with the shape the column holds; text[] → string[] (`p.array()`);
//   bytea → Buffer (`p.blob()`).
// - CHECK (col IN (...)) columns are `p.enum([...])`, whose generated check is exactly PostgreSQL's
//   `<table>_<column>_check`; other checks are declared with their names. Constraint names follow
//   PostgreSQL's defaults through PostgresConstraintNames (naming.ts).
import type { InferKyselyDB } from '@mikro-orm/postgresql';
import { Organization, Invitation, IpRule } from './org.ts';
import { User, Passkey, PasskeyChallenge, PasswordReset, EmailChange, EmailVerification, AuthThrottle } from './accounts.ts';
import { ApiKey, JwtSigningKey, RevokedToken, PrincipalRevocation } from './auth.ts';
import { UserTotp, MfaRecoveryCode, MfaLoginToken, ReauthToken } from './mfa.ts';
import { DeviceLogin } from './device-logins.ts';
import { MobileDevice, DeviceChallenge } from './mobile-devices.ts';
import { AuditEvent, AuditChainHead } from './audit.ts';
import { MailOutbox } from './mail.ts';
import { Vault } from './vaults.ts';
import { Secret, SecretVersion } from './secrets.ts';
import { Policy } from './policies.ts';
import { Agent, AgentEnrollment } from './agents.ts';
import { EventOutbox } from './events.ts';
import { Webhook, WebhookDelivery, WebhookDeliveryAttempt } from './webhooks.ts';
import { Automation, AutomationRun, AutomationRunUsage } from './automations.ts';
import { Approval, ApprovalQuickLink } from './approvals.ts';
import { AgentMemory } from './memory.ts';
import { Share, ShareAccess } from './shares.ts';
import { KeyRotationJob } from './key-rotation.ts';
import { Chain } from './chains.ts';
import { SigningKey } from './signing-keys.ts';
import { AgentFamilyDailyUsage, AgentTransaction, AgentTxDailyUsage, BitcoinSpentOutpoint, TransactionSimulation } from './transactions.ts';
import { CardanoSpentUtxo } from './cardano.ts';
import { ExecutionBinding, ExecutionEvent, ExecutionRateWindow } from './bindings.ts';
import { RateLimitWindow } from './rate-limits.ts';
import { TreasuryWallet, TreasuryTransfer, TreasuryTxChallenge } from './treasury-wallets.ts';
import { Treasury, TreasurySigner, TreasuryAccessRequest, TreasuryProposal, TreasuryProposalSignature } from './safe-treasuries.ts';
import { CreditLedgerEntry, CreditLot, CreditReminder, OrgBillingAccount, OrgLimitOverride, OrgRequestUsage, ProcessorEvent } from './billing.ts';
import { PlatformApp, PlatformConnection, PlatformSetting, PlatformTemplate } from './platform.ts';
import { PlatformBootstrap, PlatformGrant } from './platform-provisioning.ts';
import { X402Config, X402Payment } from './x402.ts';

export * from './org.ts';
export * from './accounts.ts';
export * from './auth.ts';
export * from './mfa.ts';
export * from './device-logins.ts';
export * from './mobile-devices.ts';
export * from './audit.ts';
export * from './mail.ts';
export * from './vaults.ts';
export * from './secrets.ts';
export * from './policies.ts';
export * from './agents.ts';
export * from './events.ts';
export * from './webhooks.ts';
export * from './automations.ts';
export * from './approvals.ts';
export * from './memory.ts';
export * from './shares.ts';
export * from './key-rotation.ts';
export * from './chains.ts';
export * from './signing-keys.ts';
export * from './transactions.ts';
export * from './cardano.ts';
export * from './bindings.ts';
export * from './rate-limits.ts';
export * from './treasury-wallets.ts';
export * from './safe-treasuries.ts';
export * from './billing.ts';
export * from './platform.ts';
export * from './platform-provisioning.ts';
export * from './x402.ts';
export { PostgresConstraintNames } from './naming.ts';

export const allEntities = [
  Organization, Invitation, IpRule,
  User, Passkey, PasskeyChallenge, PasswordReset, EmailChange, EmailVerification, AuthThrottle,
  ApiKey, JwtSigningKey, RevokedToken, PrincipalRevocation,
  UserTotp, MfaRecoveryCode, MfaLoginToken, ReauthToken,
  DeviceLogin,
  MobileDevice, DeviceChallenge,
  AuditEvent, AuditChainHead,
  MailOutbox,
  Vault,
  Secret, SecretVersion,
  Policy,
  Agent, AgentEnrollment,
  EventOutbox,
  Webhook, WebhookDelivery, WebhookDeliveryAttempt,
  Automation, AutomationRun, AutomationRunUsage,
  Approval, ApprovalQuickLink,
  AgentMemory,
  Share, ShareAccess,
  KeyRotationJob,
  Chain,
  SigningKey,
  AgentTransaction, AgentTxDailyUsage, TransactionSimulation, BitcoinSpentOutpoint, AgentFamilyDailyUsage, CardanoSpentUtxo,
  ExecutionBinding, ExecutionEvent, ExecutionRateWindow,
  RateLimitWindow,
  TreasuryWallet, TreasuryTransfer, TreasuryTxChallenge,
  Treasury, TreasurySigner, TreasuryAccessRequest, TreasuryProposal, TreasuryProposalSignature,
  OrgRequestUsage,
  OrgLimitOverride,
  OrgBillingAccount, CreditLot, CreditLedgerEntry, ProcessorEvent, CreditReminder,
  PlatformSetting, PlatformApp, PlatformTemplate, PlatformConnection, PlatformBootstrap, PlatformGrant,
  X402Config, X402Payment,
] as const;

/**
 * Every table as Kysely sees it (table and column names as in SQL): `em.getKysely<Database>()`.
 * The repositories' EntityManager type does not carry the entity list, so a bare `em.getKysely()`
 * types every column as `never`. Use db/query.ts's query(em), whose plugin gives the values these
 * types promise (Date, number, bigint): MikroORM's driver keeps timestamptz, int8 and numeric as
 * strings.
 */
export type Database = InferKyselyDB<(typeof allEntities)[number]>;
