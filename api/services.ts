// What the HTTP layer is given, built once per api process in workers/api-services.ts: the
// pipeline's stages get what they check with, and handlers get one object per domain area whose
// methods are the commands. Handlers never see a pool, a key or a cache.
import type { OrgLimitCommands } from '../domain/limits/org-limit-commands.ts';
import type { SettingsCommands } from '../domain/admin/settings-commands.ts';
import type { AdminUserList } from '../domain/admin/user-list.ts';
import type { AdminUserDeletion } from '../domain/admin/user-deletion.ts';
import type { Config } from '../domain/config.ts';
import type { Kms } from '../domain/crypto/kms/kms.ts';
import type { Logger } from '../domain/log.ts';
import type { JwtService } from '../domain/auth/jwt.ts';
import type { ApiKeyService } from '../domain/auth/api-keys.ts';
import type { PlatformKeyService } from '../domain/platform/platform-keys.ts';
import type { PlatformAppCommands } from '../domain/platform/platform-app-commands.ts';
import type { AppWebhookCommands } from '../domain/platform/app-webhook.ts';
import type { TemplateCommands } from '../domain/platform/template-commands.ts';
import type { PlatformUserCommands } from '../domain/platform/platform-users.ts';
import type { ConnectionCommands } from '../domain/platform/connection-commands.ts';
import type { BootstrapCommands } from '../domain/platform/bootstrap-commands.ts';
import type { ClaimCommands } from '../domain/platform/claim-commands.ts';
import type { GrantCommands } from '../domain/platform/grant-commands.ts';
import type { IpRuleCache } from '../domain/org/ip-rule-cache.ts';
import type { AuditWriter } from '../domain/audit/audit-writer.ts';
import type { Limiter } from '../domain/ratelimit/limiter.ts';
import type { QuotaMeter } from '../domain/billing/quota-meter.ts';
import type { CreditMeter } from '../domain/billing/credit-meter.ts';
import type { BillingCredits } from '../domain/billing/credit-commands.ts';
import type { BillingSubscription } from '../domain/billing/subscription-summary.ts';
import type { BillingCheckout } from '../domain/billing/billing-checkout.ts';
import type { BillingWebhooks } from '../domain/billing/billing-webhooks.ts';
import type { BillingUsage } from '../domain/billing/usage-summary.ts';
import type { BillingHistory } from '../domain/billing/billing-history.ts';
import type { RateLimits } from '../domain/ratelimit/rate-limits.ts';
import type { VaultCommands } from '../domain/vaults/vault-commands.ts';
import type { MemberCommands } from '../domain/org/member-commands.ts';
import type { InvitationCommands } from '../domain/org/invitation-commands.ts';
import type { IpRuleCommands } from '../domain/org/ip-rule-commands.ts';
import type { AuditLog } from '../domain/audit/audit-query.ts';
import type { SecretCommands } from '../domain/secrets/secret-commands.ts';
import type { PolicyCommands } from '../domain/policies/policy-commands.ts';
import type { AgentCommands } from '../domain/agents/agent-commands.ts';
import type { AgentTokenExchange } from '../domain/agents/agent-token.ts';
import type { EnrollmentCommands } from '../domain/agents/enrollment-commands.ts';
import type { TokenCommands } from '../domain/accounts/token-commands.ts';
import type { MfaCommands } from '../domain/accounts/mfa-commands.ts';
import type { ReauthCommands } from '../domain/accounts/reauth-commands.ts';
import type { DeviceLoginCommands } from '../domain/accounts/device-login.ts';
import type { PasskeyCommands } from '../domain/accounts/passkeys.ts';
import type { MobileDeviceCommands } from '../domain/accounts/mobile-devices.ts';
import type { GoogleSignIn } from '../domain/accounts/google-sign-in.ts';
import type { AccountCommands } from '../domain/accounts/account-commands.ts';
import type { PasswordCommands } from '../domain/accounts/password-commands.ts';
import type { EmailChangeCommands } from '../domain/accounts/email-change-commands.ts';
import type { ApiKeyCommands } from '../domain/accounts/api-key-commands.ts';
import type { WebhookCommands } from '../domain/webhooks/webhook-commands.ts';
import type { ApprovalCommands } from '../domain/approvals/approval-commands.ts';
import type { QuickDecide } from '../domain/approvals/quick-decide.ts';
import type { MemoryCommands } from '../domain/memory/memory-commands.ts';
import type { RunCommands } from '../domain/automations/run-commands.ts';
import type { PlatformOperators } from '../domain/auth/platform-operators.ts';
import type { X402Payments } from '../domain/billing/x402-payments.ts';
import type { CreditHeaderCache } from '../domain/billing/credit-headers.ts';
import type { X402Admin } from '../domain/billing/x402-admin.ts';
import type { TemporalCodecCommands } from '../domain/temporal/codec-commands.ts';
import type { AutomationCommands } from '../domain/automations/automation-commands.ts';
import type { AssistCommands } from '../domain/automations/assist/assist-commands.ts';
import type { ShareCommands } from '../domain/shares/share-commands.ts';
import type { ShareOpener } from '../domain/shares/share-open.ts';
import type { VaultKeyRotationCommands } from '../domain/key-rotation/vault-key-commands.ts';
import type { CmekCommands } from '../domain/key-rotation/cmek-commands.ts';
import type { ChainCommands } from '../domain/chains/chain-commands.ts';
import type { BillingTierCommands } from '../domain/org/billing-tier-commands.ts';
import type { SigningKeyCommands } from '../domain/intents/signing-keys/signing-key-commands.ts';
import type { SignCommands } from '../domain/intents/signing/sign-commands.ts';
import type { KeyBalances } from '../domain/intents/signing-keys/key-balance.ts';
import type { FamilySignCommands } from '../domain/intents/families/family-sign-commands.ts';
import type { FamilyTransactionCommands } from '../domain/intents/families/family-transaction-commands.ts';
import type { TransactionCommands } from '../domain/intents/transactions/transaction-commands.ts';
import type { SimulationCommands } from '../domain/intents/transactions/simulation-commands.ts';
import type { WalletCommands } from '../domain/treasury/wallets/wallet-commands.ts';
import type { TransferCommands } from '../domain/treasury/wallets/transfer-commands.ts';
import type { TransferPasskeys } from '../domain/treasury/wallets/transfer-passkeys.ts';
import type { BindingCommands } from '../domain/bindings/binding-commands.ts';
import type { BindingExecutor } from '../domain/bindings/binding-executor.ts';
import type { TreasuryCommands } from '../domain/treasury/safe/treasury-commands.ts';
import type { AccessRequestCommands } from '../domain/treasury/safe/access-commands.ts';
import type { ProposalCommands } from '../domain/treasury/safe/proposal-commands.ts';

export type ApiServices = {
  config: Config;
  log: Logger;

  // Pipeline stages (api/pipeline/*).
  audit: AuditWriter;
  rateLimiter: Limiter;
  /** REQUEST_QUOTAS=on: the monthly request quota of this process (api/pipeline/usage.ts); null: off. */
  quotaMeter: QuotaMeter | null;
  /** With quotas on: requests over the quota paid with prepaid credits (api/pipeline/usage.ts). */
  creditMeter: CreditMeter | null;
  /** With quotas on: the credit headers' figures per organization (30 s); null: off. */
  creditHeaders: CreditHeaderCache | null;
  /** x402 pay-per-request (stage 3) and its settings for operators. */
  x402: X402Payments;
  x402Admin: X402Admin;
  billingUsage: BillingUsage;
  /** GET /v1/billing/history: the organization's latest billable requests. */
  billingHistory: BillingHistory;
  billingCredits: BillingCredits;
  billingSubscription: BillingSubscription;
  billingCheckout: BillingCheckout;
  billingWebhooks: BillingWebhooks;
  /** The store every limit keeps its counters in; closed when the api stops. */
  rateLimits: Pick<RateLimits, 'close'>;
  jwt: JwtService;
  apiKeys: ApiKeyService;
  /** Resolves platform apps' plt_ keys for authentication. */
  platformKeys: PlatformKeyService;
  ipRules: IpRuleCache;
  /** The key backend, for /v1/health/hsm. */
  kms: Kms;

  // Domain areas: one object per area, its methods are the commands.
  vaults: VaultCommands;
  members: MemberCommands;
  invitations: InvitationCommands;
  /** Managing the IP rules (`ipRules` above is the cache the IP filter stage reads). */
  ipRuleAdmin: IpRuleCommands;
  /** Reading the audit log and checking its chain (`audit` above writes it). */
  auditLog: AuditLog;
  secrets: SecretCommands;
  policies: PolicyCommands;
  agents: AgentCommands;
  /** POST /v1/auth/agent-token: an agent's ocv_ key for a JWT. */
  agentTokens: AgentTokenExchange;
  /** Agent self-enrollment and its approval. */
  enrollments: EnrollmentCommands;
  /** Human tokens: signup, password login, personal-key exchange, logout. */
  tokens: TokenCommands;
  /** TOTP second factor: status, setup, confirm, disable (the login's second step is in tokens). */
  mfa: MfaCommands;
  /** POST /v1/auth/reauth: single-use rat_ tokens for X-Auth-Confirm. */
  reauth: ReauthCommands;
  /** Device login for command-line clients: codes, approval, polling (RFC 8628). */
  deviceLogin: DeviceLoginCommands;
  /** Passkeys: registration, sign-in, listing, removal, and passkey re-authentication. */
  passkeys: PasskeyCommands;
  /** Mobile devices: registration, push tokens, step-up challenges and their rat_ tokens. */
  mobileDevices: MobileDeviceCommands;
  /** POST /v1/auth/google: a Google ID token for a token (501 when not configured). */
  google: GoogleSignIn;
  /** The caller's own account: profile, settings, export, deletion. */
  account: AccountCommands;
  passwords: PasswordCommands;
  emailChange: EmailChangeCommands;
  /** Managing personal xck_ keys (`apiKeys` above resolves them for authentication). */
  personalKeys: ApiKeyCommands;
  /** Organization webhooks and their delivery history. */
  webhooks: WebhookCommands;
  /** Platform API apps (§4.15) and their plt_ keys. */
  platformApps: PlatformAppCommands;
  /** A platform app's own webhook: its secret's in-place rotation. */
  platformAppWebhooks: AppWebhookCommands;
  /** Platform apps' bootstrap templates. */
  platformTemplates: TemplateCommands;
  /** POST /v1/platform/users/upsert. */
  platformUsers: PlatformUserCommands;
  /** Apps' connected users and users' connected apps. */
  platformConnections: ConnectionCommands;
  /** Bootstraps from templates (a durable workflow) and their claim links. */
  platformBootstraps: BootstrapCommands;
  /** The public claim routes. */
  platformClaims: ClaimCommands;
  /** What users grant apps through their connections. */
  platformGrants: GrantCommands;
  /** Human-in-the-loop approvals: agents request, humans decide. */
  approvals: ApprovalCommands;
  /** The mailed one-click links: GET /v1/approvals/quick-decide. */
  quickDecide: QuickDecide;
  /** Per-agent namespaced memory. */
  memory: MemoryCommands;
  /** Automation runs: manual and webhook triggers, the run list and detail, cancel. */
  runs: RunCommands;
  /** Who the platform operators are (PLATFORM_ADMIN_EMAILS). */
  platformOperators: PlatformOperators;
  /** The Temporal codec endpoint for operators: decode/encode payloads, codec links for the UI. */
  temporalCodec: TemporalCodecCommands;
  /** Automations: CRUD, presets and webhook tokens (runs are `runs`). */
  automations: AutomationCommands;
  /** The automation assistant: drafts from the default model provider, session tokens. */
  assist: AssistCommands;
  /** Sharing a secret: create, lists, accept, decline, revoke. */
  shares: ShareCommands;
  /** Opening a share (the public route). */
  shareAccess: ShareOpener;
  /** Rotating a vault's own key (a background job). */
  vaultKeys: VaultKeyRotationCommands;
  /** Customer-managed keys: enable, disable, rotate (a background job). */
  cmek: CmekCommands;
  /** EVM chains: the public list and lookup, and their management by platform operators. */
  chains: ChainCommands;
  /** Organizations' plans, set by platform operators (until billing lands). */
  billingTiers: BillingTierCommands;
  orgLimits: OrgLimitCommands;
  settings: SettingsCommands;
  adminUsers: AdminUserList;
  adminUserDeletion: AdminUserDeletion;
  /** Agents' signing keys: provision, list, rotate, deactivate, export. */
  signingKeys: SigningKeyCommands;
  /** GET …/signing-keys/{chain}/balance. */
  keyBalances: KeyBalances;
  /** POST /v1/agents/{id}/sign: the agent's key signs messages, typed data, digests and transactions (sign only). */
  intents: SignCommands;
  transactions: TransactionCommands;
  /** Transactions on Bitcoin and Solana networks (domain/intents/families). */
  familyTransactions: FamilyTransactionCommands;
  /** Unified sign on Solana. */
  familySigning: FamilySignCommands;
  simulations: SimulationCommands;
  /** Treasury wallets (human-only): generate, list, get, balance, export, rotate, deactivate. */
  treasuryWallets: WalletCommands;
  /** Sends from treasury wallets, broadcast durably (workflow treasury-transfer:<id>). */
  treasuryTransfers: TransferCommands;
  /** Passkey assertions that approve one treasury transfer (tx-assert). */
  treasuryPasskeys: TransferPasskeys;
  /** Execution bindings: CRUD, credential rotation, connectivity test, the execution list. */
  bindings: BindingCommands;
  /** POST /v1/agents/{id}/execute: an agent's request through a binding, credential added and redacted. */
  bindingExecutor: BindingExecutor;
  /** Multisig treasuries on a Safe: CRUD and signers. */
  treasuries: TreasuryCommands;
  /** Agents' access requests to treasuries. */
  treasuryAccess: AccessRequestCommands;
  /** Safe transaction proposals: propose, sign, cancel, execute. */
  treasuryProposals: ProposalCommands;

};
