// The api process's composition root: every cache, limiter, key and domain area is built here,
// once, and handed to the HTTP layer. Nothing below api/ builds its own.
import { OrgLimitCommands } from '../domain/limits/org-limit-commands.ts';
import { SettingsCommands } from '../domain/admin/settings-commands.ts';
import { AdminUserList } from '../domain/admin/user-list.ts';
import { AdminUserDeletion } from '../domain/admin/user-deletion.ts';
import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../domain/config.ts';
import type { Logger } from '../domain/log.ts';
import type { Core } from './core.ts';
import type { HotReads } from '../db/hot-reads.ts';
import type { InvalidationBus } from '../domain/cache/invalidation-bus.ts';
import type { ApiServices } from '../api/services.ts';
import { RevocationList } from '../domain/auth/revocations.ts';
import { JwtService } from '../domain/auth/jwt.ts';
import { ApiKeyService } from '../domain/auth/api-keys.ts';
import { PlatformKeyService } from '../domain/platform/platform-keys.ts';
import { PlatformAppCommands } from '../domain/platform/platform-app-commands.ts';
import { AppWebhookCommands } from '../domain/platform/app-webhook.ts';
import { TemplateCommands } from '../domain/platform/template-commands.ts';
import { PlatformUserCommands } from '../domain/platform/platform-users.ts';
import { ConnectionCommands } from '../domain/platform/connection-commands.ts';
import { BootstrapCommands } from '../domain/platform/bootstrap-commands.ts';
import { ClaimCommands } from '../domain/platform/claim-commands.ts';
import { GrantCommands } from '../domain/platform/grant-commands.ts';
import { PlatformClient } from '../domain/platform/client.ts';
import { AppOidcVerifier } from '../domain/platform/app-oidc.ts';
import { IpRuleCache } from '../domain/org/ip-rule-cache.ts';
import { AuditWriter } from '../domain/audit/audit-writer.ts';
import { secretReadPrecondition } from '../domain/secrets/read-guard.ts';
import { ActionAudit } from '../domain/audit/action-audit.ts';
import { RateLimits } from '../domain/ratelimit/rate-limits.ts';
import { batchedLeaseSize, windowOf, type LimitSpec } from '../domain/ratelimit/limiter.ts';
import { MailClient } from '../domain/mail/client.ts';
import { AccountsClient } from '../domain/accounts/client.ts';
import { VaultCommands } from '../domain/vaults/vault-commands.ts';
import { MemberCommands } from '../domain/org/member-commands.ts';
import { InvitationCommands } from '../domain/org/invitation-commands.ts';
import { IpRuleCommands } from '../domain/org/ip-rule-commands.ts';
import { AuditLog } from '../domain/audit/audit-query.ts';
import { PolicyCommands } from '../domain/policies/policy-commands.ts';
import { AgentCommands } from '../domain/agents/agent-commands.ts';
import { AgentTokenExchange } from '../domain/agents/agent-token.ts';
import { EnrollmentCommands, ENROLL_PER_IP } from '../domain/agents/enrollment-commands.ts';
import { Mailer } from '../domain/mail/mailer.ts';
import { TokenCommands } from '../domain/accounts/token-commands.ts';
import { MfaCommands } from '../domain/accounts/mfa-commands.ts';
import { GoogleSignIn } from '../domain/accounts/google-sign-in.ts';
import { googleKeys } from '../domain/accounts/google-keys.ts';
import { AccountCommands } from '../domain/accounts/account-commands.ts';
import { PasswordCommands } from '../domain/accounts/password-commands.ts';
import { EmailChangeCommands } from '../domain/accounts/email-change-commands.ts';
import { ApiKeyCommands } from '../domain/accounts/api-key-commands.ts';
import { AttemptThrottle } from '../domain/accounts/attempt-throttle.ts';
import { PasswordCheck } from '../domain/accounts/password-check.ts';
import { StepUp } from '../domain/accounts/step-up.ts';
import { ReauthCommands } from '../domain/accounts/reauth-commands.ts';
import { DeviceLoginCommands } from '../domain/accounts/device-login.ts';
import { PasskeyCommands } from '../domain/accounts/passkeys.ts';
import { MobileDeviceCommands } from '../domain/accounts/mobile-devices.ts';
import { LogPushSender } from '../domain/accounts/push-sender.ts';
import { PasskeyTokens } from '../domain/auth/passkey-tokens.ts';
import { WebhookCommands } from '../domain/webhooks/webhook-commands.ts';
import { WebhooksClient } from '../domain/webhooks/client.ts';
import { ApprovalCommands } from '../domain/approvals/approval-commands.ts';
import { ApprovalsClient } from '../domain/approvals/client.ts';
import { QuickDecide } from '../domain/approvals/quick-decide.ts';
import { MemoryCommands } from '../domain/memory/memory-commands.ts';
import { MemoryStore } from '../domain/memory/memory-store.ts';
import { RunCommands } from '../domain/automations/run-commands.ts';
import { AutomationsClient } from '../domain/automations/client.ts';
import { secretCommands, secretLookup } from './secret-services.ts';
import { ShareCommands, SHARE_CREATE_PER_ORG } from '../domain/shares/share-commands.ts';
import { ShareOpener, SHARE_OPEN_PER_IP, SHARE_OPEN_PER_SHARE } from '../domain/shares/share-open.ts';
import { SharesClient } from '../domain/shares/client.ts';
import { VaultKeyRotationCommands } from '../domain/key-rotation/vault-key-commands.ts';
import { CmekCommands } from '../domain/key-rotation/cmek-commands.ts';
import { KeyRotationClient } from '../domain/key-rotation/client.ts';
import { AutomationSchedules } from '../domain/automations/schedule-client.ts';
import { RunApprovalUpdates } from '../domain/automations/run-approval-gate.ts';
import { parseExemptions, systemResolver } from '../domain/net/outbound/index.ts';
import { PlatformOperators } from '../domain/auth/platform-operators.ts';
import { TemporalCodecCommands } from '../domain/temporal/codec-commands.ts';
import { EncryptionCodec } from '../domain/temporal/payload-codec.ts';
import { CodecLinks } from '../domain/temporal/codec-links.ts';
import { AutomationCommands } from '../domain/automations/automation-commands.ts';
import { AssistCommands } from '../domain/automations/assist/assist-commands.ts';
import { defaultModel } from '../domain/ai/providers.ts';
import { createOutboundClient } from '../domain/net/outbound/client.ts';
import { ChainCommands } from '../domain/chains/chain-commands.ts';
import { BillingTierCommands } from '../domain/org/billing-tier-commands.ts';
import { KeyBalances } from '../domain/intents/signing-keys/key-balance.ts';
import { ChainFamilies } from '../domain/intents/families/family-registry.ts';
import { SigningKeyCommands } from '../domain/intents/signing-keys/signing-key-commands.ts';
import { intentServices, type IntentServices } from './intent-services.ts';
import { WalletCommands, TREASURY_EXPORT_PER_USER } from '../domain/treasury/wallets/wallet-commands.ts';
import { TransferCommands } from '../domain/treasury/wallets/transfer-commands.ts';
import { WalletFamilies } from '../domain/treasury/wallets/families.ts';
import { TreasuryTransfersClient } from '../domain/treasury/wallets/client.ts';
import { TransferPasskeys } from '../domain/treasury/wallets/transfer-passkeys.ts';
import { bindingServices } from './binding-services.ts';
import { safeTreasuryServices } from './treasury-services.ts';
import { QuotaMeter } from '../domain/billing/quota-meter.ts';
import { CreditMeter } from '../domain/billing/credit-meter.ts';
import { postgresCreditStore } from '../domain/billing/postgres-credit-store.ts';
import { BillingCredits } from '../domain/billing/credit-commands.ts';
import { BillingSubscription } from '../domain/billing/subscription-summary.ts';
import { BillingCheckout } from '../domain/billing/billing-checkout.ts';
import { BillingWebhooks } from '../domain/billing/billing-webhooks.ts';
import { StripeProcessor } from '../domain/billing/stripe-processor.ts';
import { postgresQuotaStore } from '../domain/billing/postgres-quota-store.ts';
import { BillingUsage } from '../domain/billing/usage-summary.ts';
import { X402Payments } from '../domain/billing/x402-payments.ts';
import { CreditHeaderCache, postgresCreditFigures } from '../domain/billing/credit-headers.ts';
import { X402Facilitator } from '../domain/billing/x402-facilitator.ts';
import { X402SettleRetries } from '../domain/billing/x402-settle-retries.ts';
import { X402Admin } from '../domain/billing/x402-admin.ts';
import { BillingHistory } from '../domain/billing/billing-history.ts';

export type ApiWiring = {
  config: Config; log: Logger; core: Core; hot: HotReads; bus: InvalidationBus; temporal: Client;
  /** A client on the connection of a worker running in this process (`npm start`): eager starts. */
  colocatedTemporal?: Client;
};

/**
 * Builds the services. `startBus` runs once every cache has subscribed to the invalidation bus
 * and before anything is loaded, so no invalidation between load and subscription is missed.
 */
export async function buildApiServices(w: ApiWiring, startBus: () => Promise<void>): Promise<ApiServices> {
  const { config, log, core, hot, bus } = w;
  const db = () => core.db.em.fork();
  const revocations = new RevocationList(db, bus);
  const apiKeys = new ApiKeyService(core.pepper, hot, bus);
  const platformKeys = new PlatformKeyService(core.pepper, hot, bus);
  const ipRules = new IpRuleCache(db, bus);
  await startBus();
  const jwt = new JwtService(config.jwtIssuer, core.jwtWrapKey, revocations);
  await jwt.init(db());
  const audit = new AuditWriter(hot, core.auditKey, log, secretReadPrecondition);
  const limits = await RateLimits.open(config.rateLimit.store, { hot, log });
  const actionAudit = new ActionAudit(audit);
  // The Temporal areas' clients (the only starters of their workflows); the Mailer seals outbox bodies.
  const accounts = new AccountsClient(w.temporal, log);
  const mailer = new Mailer(new MailClient(w.temporal, log), core.mailKey);
  const platformOperators = new PlatformOperators(config.platformAdminEmails);
  const automations = new AutomationsClient(w.temporal, w.colocatedTemporal ?? null);
  const lookup = secretLookup(hot);
  const secrets = secretCommands({ db, hot, kms: core.kms, audit: actionAudit, pepper: core.pepper, lookup });
  const exemptions = parseExemptions(config.outboundAllowCidrs);
  const chains = new ChainCommands({ db, audit: actionAudit, operators: platformOperators, rpcOverrides: config.chainRpcUrls, log });
  void chains.logUnusedOverrides();
  // X-Auth-Confirm (a password or a rat_ token) for every sensitive action. Its throttle keeps its
  // counts in the database (shared with the account area's instance, which prunes them).
  const stepUp = new StepUp({ throttle: new AttemptThrottle(), passwords: new PasswordCheck(), pepper: core.pepper });
  const approvals = new ApprovalCommands({
    db, audit: actionAudit, stepUp, runGate: new RunApprovalUpdates(db, automations), waits: new ApprovalsClient(w.temporal, log),
  });
  const accountParts = accountAreas({ config, log, db, hot, jwt, apiKeys, revocations, audit: actionAudit, mailer, deletion: accounts, pepper: core.pepper, totpKey: core.totpKey, stepUp });
  // A phone's step-up challenge may name an approval: only one the caller may decide now.
  const mobileDevices = new MobileDeviceCommands({
    db, audit: actionAudit, stepUp, throttle: new AttemptThrottle(), pepper: core.pepper, rp: config.webauthn, passkeys: accountParts.passkeys,
    push: new LogPushSender(log), log, targets: async (ctx, _purpose, targetId) => { await approvals.decidable(ctx, targetId); },
  });
  const intentParts = intentServices({ db, hot, kms: core.kms, audit: actionAudit, temporal: w.temporal, log, rpcOverrides: config.chainRpcUrls });
  const chainFamilies = new ChainFamilies({ rpcOverrides: config.chainRpcUrls });
  const walletFamilies = new WalletFamilies(intentParts.chainRpc, chainFamilies);
  const quotaMeter = config.requestQuotas
    ? new QuotaMeter({ store: postgresQuotaStore(db), onFlushError: (e) => log.warn('request usage not reported yet; kept for the next report', { error: String(e) }) })
    : null;
  const paymentProcessor = config.stripe ? new StripeProcessor(config.stripe) : null;
  const creditMeter = quotaMeter
    ? new CreditMeter({ store: postgresCreditStore(db), onFlushError: (e) => log.warn('credit spending not reported yet; kept for the next report', { error: String(e) }) })
    : null;
  const creditHeaders = quotaMeter ? new CreditHeaderCache({
    load: postgresCreditFigures(db),
    onError: (e) => log.warn('credit headers not read; kept what was known', { error: String(e) }),
  }) : null;
  const x402 = new X402Payments({ db, facilitator: new X402Facilitator(createOutboundClient({ exemptions })), retries: new X402SettleRetries(w.temporal), log });
  return {
    config, log,
    x402, x402Admin: new X402Admin({ db, audit: actionAudit, operators: platformOperators, payments: x402 }),
    audit, rateLimiter: limits.limiter(globalLimit(config)), rateLimits: limits, jwt, apiKeys, platformKeys, ipRules, kms: core.kms,
    quotaMeter, creditMeter, creditHeaders, billingUsage: new BillingUsage({ db, meter: quotaMeter, credits: creditMeter }),
    billingHistory: new BillingHistory({ db }),
    billingCredits: new BillingCredits({ db, audit: actionAudit }),
    billingSubscription: new BillingSubscription({ db, meter: quotaMeter, credits: creditMeter }),
    billingCheckout: new BillingCheckout({ db, processor: paymentProcessor, returnUrl: config.billingReturnUrl }),
    billingWebhooks: new BillingWebhooks({ db, processor: paymentProcessor, audit: actionAudit }),
    vaults: new VaultCommands({ db, hot, kms: core.kms, audit: actionAudit }),
    vaultKeys: new VaultKeyRotationCommands({ db, hot, kms: core.kms, audit: actionAudit, client: new KeyRotationClient(w.temporal, log) }),
    cmek: new CmekCommands({ db, hot, kms: core.kms, audit: actionAudit, client: new KeyRotationClient(w.temporal, log) }),
    members: new MemberCommands({ db, audit: actionAudit, revocations, apiKeys }),
    invitations: new InvitationCommands({ db, audit: actionAudit, mailer, pepper: core.pepper, jwt, publicUrl: config.publicUrl }),
    ipRuleAdmin: new IpRuleCommands({ db, audit: actionAudit, cache: ipRules }),
    auditLog: new AuditLog({ db, writer: audit, chainKey: core.auditKey }),
    secrets,
    ...bindingServices({ db, kms: core.kms, audit: actionAudit, secrets, outbound: createOutboundClient({ exemptions }), exemptions }),
    ...shareAreas({ config, log, db, lookup, core, audit: actionAudit, mailer, temporal: w.temporal, limits }),
    policies: new PolicyCommands({ db, hot, audit: actionAudit }),
    agents: new AgentCommands({ db, pepper: core.pepper, revocations, audit: actionAudit }),
    agentTokens: new AgentTokenExchange({ hot, pepper: core.pepper, jwt, audit: actionAudit }),
    enrollments: new EnrollmentCommands({
      db, hot, pepper: core.pepper, mailer, audit: actionAudit, publicUrl: config.publicUrl,
      perIp: limits.limiter(ENROLL_PER_IP),
    }),
    platformApps: new PlatformAppCommands({
      db, audit: actionAudit, keys: platformKeys, exemptions: parseExemptions(config.outboundAllowCidrs), resolver: systemResolver,
      webhookKey: core.webhookKey,
    }),
    platformAppWebhooks: new AppWebhookCommands({ db, audit: actionAudit, webhookKey: core.webhookKey }),
    platformTemplates: new TemplateCommands({ db, audit: actionAudit }),
    platformConnections: new ConnectionCommands({ db, audit: actionAudit }),
    platformBootstraps: new BootstrapCommands({ db, audit: actionAudit, pepper: core.pepper, client: new PlatformClient(w.temporal, log), publicUrl: config.publicUrl }),
    platformClaims: new ClaimCommands({ db, audit: actionAudit, pepper: core.pepper, publicUrl: config.publicUrl }),
    platformGrants: new GrantCommands({ db, audit: actionAudit }),
    platformUsers: new PlatformUserCommands({
      db, audit: actionAudit, publicUrl: config.publicUrl,
      oidc: new AppOidcVerifier(createOutboundClient({ exemptions: parseExemptions(config.outboundAllowCidrs) })),
    }),
    webhooks: new WebhookCommands({
      db, audit: actionAudit, webhookKey: core.webhookKey, exemptions: parseExemptions(config.outboundAllowCidrs), resolver: systemResolver,
      client: new WebhooksClient(w.temporal, config.webhookRetryInitialSeconds), log,
    }),
    approvals,
    quickDecide: new QuickDecide({ db, approvals, publicUrl: config.publicUrl }),
    mobileDevices,
    memory: new MemoryCommands({ db, store: new MemoryStore(db), audit: actionAudit }),
    runs: new RunCommands({ db, audit: actionAudit, client: automations, log, runTimeoutSeconds: config.automationRunTimeoutSeconds }),
    platformOperators,
    chains,
    billingTiers: new BillingTierCommands({ db, audit: actionAudit, operators: platformOperators }),
    orgLimits: new OrgLimitCommands({ db, audit: actionAudit, operators: platformOperators }),
    settings: new SettingsCommands({ db, audit: actionAudit, operators: platformOperators }),
    adminUsers: new AdminUserList({ db, operators: platformOperators }),
    adminUserDeletion: new AdminUserDeletion({ db, audit: actionAudit, operators: platformOperators, revocations, apiKeys, deletion: accounts }),
    // Export re-confirms like DELETE /v1/auth/me: the password or a rat_ token (signing_key.export).
    signingKeys: new SigningKeyCommands({ db, kms: core.kms, audit: actionAudit, log, stepUp }),
    keyBalances: new KeyBalances({ db, rpc: intentParts.chainRpc, families: chainFamilies }),
    ...pickIntents(intentParts),
    // Treasury wallets: X-Auth-Confirm like signing key export; exports limited per user.
    treasuryWallets: new WalletCommands({ db, kms: core.kms, audit: actionAudit, stepUp, families: walletFamilies, exports: limits.limiter(TREASURY_EXPORT_PER_USER) }),
    treasuryTransfers: new TransferCommands({
      db, kms: core.kms, audit: actionAudit, stepUp, families: walletFamilies, client: new TreasuryTransfersClient(w.temporal, log),
    }),
    treasuryPasskeys: new TransferPasskeys({ db, audit: actionAudit, pepper: core.pepper, passkeys: accountParts.passkeys }),
    temporalCodec: new TemporalCodecCommands({
      db, operators: platformOperators, codec: new EncryptionCodec(core.temporalCodecKey), links: new CodecLinks(core.temporalCodecLinkKey),
      audit: actionAudit, namespace: config.temporalNamespace, publicUrl: config.publicUrl,
    }),
    automations: new AutomationCommands({
      db, audit: actionAudit, log, publicUrl: config.publicUrl, destinations: { ai: config.ai, exemptions },
      schedules: new AutomationSchedules(db, w.temporal, log),
    }),
    // The assistant's model calls go out through the SSRF-safe client like every other.
    assist: new AssistCommands({
      db, audit: actionAudit, jwt, publicUrl: config.publicUrl,
      model: defaultModel(config.ai, createOutboundClient({ exemptions: parseExemptions(config.outboundAllowCidrs) })),
    }),
    ...accountParts,
    ...safeTreasuryServices({ db, kms: core.kms, audit: actionAudit, stepUp, temporal: w.temporal, log, rpcOverrides: config.chainRpcUrls }),
  };
}


/**
 * The global per-address limit (RATE_LIMIT_RPS, RATE_LIMIT_BURST). It fails open to a limit per
 * process: a store outage must not take the whole API down. Its requests are leased in batches
 * so the hot path rarely waits for the store.
 */
function globalLimit(config: Config): LimitSpec {
  const { ratePerSecond, burst } = config.rateLimit;
  return { name: 'global', ratePerSecond, burst, whenStoreDown: 'open', leaseSize: batchedLeaseSize(windowOf({ ratePerSecond, burst }).points) };
}

const pickIntents = ({ intents, transactions, familyTransactions, familySigning, simulations }: IntentServices) =>
  ({ intents, transactions, familyTransactions, familySigning, simulations });

/** Accounts and personal credentials: one attempt throttle (passwords, Google ID tokens) and one password check shared by all. */
function accountAreas(d: {
  config: Config; log: Logger; db: () => EntityManager; hot: HotReads; jwt: JwtService; apiKeys: ApiKeyService;
  revocations: RevocationList; audit: ActionAudit; mailer: Mailer; deletion: AccountsClient; pepper: Core['pepper'];
  totpKey: Core['totpKey']; stepUp: StepUp;
}): Pick<ApiServices, 'tokens' | 'mfa' | 'reauth' | 'passkeys' | 'deviceLogin' | 'google' | 'account' | 'passwords' | 'emailChange' | 'personalKeys'> {
  const throttle = new AttemptThrottle();
  throttle.startPruning(d.db, d.log);
  const passwords = new PasswordCheck();
  const { db, hot, jwt, apiKeys, revocations, audit, mailer, pepper, stepUp } = d;
  const mfa = new MfaCommands({ db, audit, throttle, totpKey: d.totpKey, pepper, stepUp });
  const passkeys = new PasskeyCommands({ db, audit, jwt, throttle, stepUp, pepper, rp: { ...d.config.webauthn, name: 'Vault' }, passkeyTokens: new PasskeyTokens(pepper) });
  return {
    tokens: new TokenCommands({ db, jwt, apiKeys, revocations, audit, throttle, passwords, pepper, mailer, publicUrl: d.config.publicUrl, mfa }),
    mfa,
    reauth: new ReauthCommands({ db, audit, throttle, passwords, pepper, mfa, passkeys }),
    passkeys,
    deviceLogin: new DeviceLoginCommands({ db, jwt, audit, throttle, pepper, publicUrl: d.config.publicUrl }),
    // A JWKS file is read here, so a missing one stops the start rather than every sign-in.
    google: new GoogleSignIn({
      db, jwt, audit, throttle, log: d.log, mfa,
      google: d.config.google && { clientIds: d.config.google.clientIds, keys: googleKeys(d.config.google.jwks) },
    }),
    account: new AccountCommands({ db, hot, audit, revocations, apiKeys, throttle, passwords, stepUp, deletion: d.deletion }),
    passwords: new PasswordCommands({ db, jwt, revocations, audit, mailer, throttle, passwords, pepper, publicUrl: d.config.publicUrl }),
    emailChange: new EmailChangeCommands({ db, hot, audit, mailer, pepper }),
    personalKeys: new ApiKeyCommands({ db, keys: apiKeys, audit }),
  };
}

/** Sharing: the commands and the public opener, with their limiters. */
function shareAreas(d: {
  config: Config; log: Logger; db: () => EntityManager; lookup: ReturnType<typeof secretLookup>; core: Core; audit: ActionAudit;
  mailer: Mailer; temporal: Client; limits: RateLimits;
}): Pick<ApiServices, 'shares' | 'shareAccess'> {
  const { db, lookup, core, audit } = d;
  return {
    shares: new ShareCommands({
      db, lookup, audit, mailer: d.mailer, pepper: core.pepper, linkKey: core.shareLinkKey, publicUrl: d.config.publicUrl,
      perOrg: d.limits.limiter(SHARE_CREATE_PER_ORG),
    }),
    shareAccess: new ShareOpener({
      db, lookup, kms: core.kms, audit, pepper: core.pepper,
      perIp: d.limits.limiter(SHARE_OPEN_PER_IP),
      perShare: d.limits.limiter(SHARE_OPEN_PER_SHARE),
      notices: new SharesClient(d.temporal, d.log), mailWindowSeconds: d.config.shareAccessMailWindowSeconds,
    }),
  };
}
