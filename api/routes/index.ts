// Every route of the API. Adding an area: write its routes file and list it here.
import type { RouteDef } from '../route.ts';
import { healthRoutes } from './health.ts';
import { tokenRoutes } from './auth/tokens.ts';
import { googleRoutes } from './auth/google.ts';
import { meRoutes } from './auth/me.ts';
import { passwordRoutes } from './auth/passwords.ts';
import { emailChangeRoutes } from './auth/email-change.ts';
import { apiKeyRoutes } from './auth/api-keys.ts';
import { mfaRoutes } from './auth/mfa.ts';
import { deviceRoutes } from './auth/device.ts';
import { passkeyRoutes } from './auth/passkeys.ts';
import { mobileDeviceRoutes } from './auth/devices.ts';
import { memberRoutes } from './org/members.ts';
import { invitationRoutes } from './org/invitations.ts';
import { agentKeysVaultRoutes } from './org/agent-keys-vault.ts';
import { ipRuleRoutes } from './security/ip-rules.ts';
import { auditRoutes } from './audit/audit.ts';
import { vaultRoutes } from './vaults/vaults.ts';
import { secretRoutes } from './vaults/secrets.ts';
import { policyRoutes } from './vaults/policies.ts';
import { agentRoutes } from './agents/agents.ts';
import { agentTokenRoutes } from './agents/agent-token.ts';
import { enrollRoutes } from './agents/enroll.ts';
import { webhookRoutes } from './webhooks/webhooks.ts';
import { platformAppRoutes } from './platform/apps.ts';
import { platformTemplateRoutes } from './platform/templates.ts';
import { platformUserRoutes } from './platform/users.ts';
import { platformConnectionRoutes } from './platform/connections.ts';
import { platformBootstrapRoutes } from './platform/bootstrap.ts';
import { platformGrantRoutes } from './platform/grants.ts';
import { approvalRoutes } from './approvals/approvals.ts';
import { memoryRoutes } from './agents/memory.ts';
import { temporalCodecRoutes } from './admin/temporal-codec.ts';
import { chainRoutes } from './chains/chains.ts';
import { adminChainRoutes } from './chains/admin-chains.ts';
import { runRoutes } from './automations/runs.ts';
import { automationRoutes } from './automations/automations.ts';
import { assistRoutes } from './automations/assist.ts';
import { shareRoutes } from './shares/shares.ts';
import { keyRotationRoutes } from './vaults/key-rotation.ts';
import { cmekRoutes } from './vaults/cmek.ts';
import { billingTierRoutes } from './admin/billing-tier.ts';
import { orgLimitRoutes } from './admin/org-limits.ts';
import { settingRoutes } from './admin/settings.ts';
import { adminUserRoutes } from './admin/users.ts';
import { billingUsageRoutes } from './billing/usage.ts';
import { billingHistoryRoutes } from './billing/history.ts';
import { billingCreditRoutes } from './billing/credits.ts';
import { billingCheckoutRoutes } from './billing/checkout.ts';
import { x402AdminRoutes } from './admin/x402.ts';
import { signingKeyRoutes } from './agents/signing-keys.ts';
import { signRoutes } from './agents/sign.ts';
import { transactionRoutes } from './agents/transactions.ts';
import { bindingRoutes } from './agents/bindings.ts';
import { executeRoutes } from './agents/execute.ts';
import { treasuryWalletRoutes } from './treasury/wallets.ts';
import { treasuryPasskeyRoutes } from './treasury/wallets-passkey.ts';
import { treasuryRoutes } from './treasury/treasuries.ts';
import { treasuryAccessRoutes } from './treasury/access-requests.ts';
import { treasuryProposalRoutes } from './treasury/proposals.ts';

export function allRoutes(): RouteDef[] {
  const routes: RouteDef[] = [
    ...tokenRoutes, ...mfaRoutes, ...deviceRoutes, ...passkeyRoutes, ...mobileDeviceRoutes, ...googleRoutes, ...meRoutes, ...passwordRoutes, ...emailChangeRoutes, ...apiKeyRoutes,
    ...memberRoutes, ...invitationRoutes, ...agentKeysVaultRoutes, ...ipRuleRoutes, ...auditRoutes,
    ...vaultRoutes, ...keyRotationRoutes, ...cmekRoutes, ...secretRoutes, ...shareRoutes, ...policyRoutes, ...agentTokenRoutes, ...enrollRoutes, ...agentRoutes, ...signingKeyRoutes, ...signRoutes, ...transactionRoutes, ...bindingRoutes, ...executeRoutes,
    ...treasuryWalletRoutes, ...treasuryPasskeyRoutes,
    ...webhookRoutes,
    ...platformAppRoutes,
    ...platformTemplateRoutes,
    ...platformUserRoutes,
    ...platformConnectionRoutes,
    ...platformBootstrapRoutes,
    ...platformGrantRoutes,
    ...approvalRoutes, ...memoryRoutes,
    ...assistRoutes, ...automationRoutes,
    ...temporalCodecRoutes, ...billingTierRoutes, ...orgLimitRoutes, ...settingRoutes, ...adminUserRoutes, ...billingUsageRoutes, ...billingHistoryRoutes, ...billingCreditRoutes, ...billingCheckoutRoutes, ...x402AdminRoutes,
    ...chainRoutes, ...adminChainRoutes,
    ...runRoutes,
    ...treasuryRoutes, ...treasuryAccessRoutes, ...treasuryProposalRoutes,
  ];
  const everything: RouteDef[] = [...healthRoutes(() => everything), ...routes];
  return everything;
}
