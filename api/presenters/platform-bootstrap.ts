// Bootstrap and claim answers of the platform API (reference BootstrapResponse,
// ClaimPreviewResponse, ClaimRedeemResponse). The agent's `ocv_` key and the claim token appear
// only in the bootstrap's one answer (and a reissue's new token); nullable fields as the reference has them.
import { z } from 'zod';
import { shape, uuid } from './registry.ts';
import type { BootstrapAnswer, ClaimLink } from '../../domain/platform/bootstrap-commands.ts';
import type { ClaimPreview, ClaimRedeemed } from '../../domain/platform/claim-commands.ts';
import { primaryAgent } from '../../domain/platform/bootstrap-plan.ts';

const claimLinkFields = {
  claim_url: z.string(),
  /** `ct_…`: the only credential of the public claim routes, valid for expires_in seconds. */
  claim_token: z.string(),
  expires_in: z.number().int(),
  connection_id: uuid,
};

export const ClaimLinkSchema = shape('PlatformClaimLink', z.object(claimLinkFields));

export const BootstrapSchema = shape('PlatformBootstrap', z.object({
  ...claimLinkFields,
  summary: z.object({
    vault_id: uuid.nullable(),
    agent_id: uuid.nullable(),
    agent_ids: z.array(uuid),
    policy_ids: z.array(uuid),
    signing_key_chains: z.array(z.string()),
    /** The first agent's `ocv_` key, shown this once. */
    agent_api_key: z.string().nullable(),
    agent_evm_address: z.string().nullable(),
    signing_keys: z.array(z.object({ chain: z.string(), curve: z.string(), public_key: z.string(), address: z.string() })),
    runtime_ids: z.array(uuid),
    automation_ids: z.array(uuid),
  }),
}));

export const ClaimPreviewSchema = shape('PlatformClaimPreview', z.object({
  app_name: z.string(),
  app_slug: z.string(),
  app_logo_url: z.string().nullable(),
  auth_mode: z.string(),
  vault_ids: z.array(uuid),
  agent_ids: z.array(uuid),
  policy_count: z.number().int(),
  status: z.enum(['connected', 'claimed', 'disconnected']),
  already_claimed: z.boolean(),
  expired: z.boolean(),
  return_to: z.string().nullable(),
}));

export const ClaimRedeemSchema = shape('PlatformClaimRedeem', z.object({
  status: z.literal('claimed'),
  connection_id: uuid,
  vault_ids: z.array(uuid),
  agent_ids: z.array(uuid),
  return_to: z.string().nullable(),
  dashboard_url: z.string(),
}));

const linkOf = (l: ClaimLink) => ({ claim_url: l.claimUrl, claim_token: l.claimToken, expires_in: l.expiresIn, connection_id: l.connectionId });

export const presentClaimLink = (l: ClaimLink): z.output<typeof ClaimLinkSchema> => linkOf(l);

export function presentBootstrap(a: BootstrapAnswer): z.output<typeof BootstrapSchema> {
  return {
    ...linkOf(a),
    summary: {
      vault_id: a.plan.vault.id,
      agent_id: primaryAgent(a.plan)?.id ?? null,
      agent_ids: a.plan.agents.map((x) => x.id),
      policy_ids: a.plan.policies.map((p) => p.id),
      signing_key_chains: a.signingKeys.map((k) => k.chain),
      agent_api_key: a.agentApiKey,
      agent_evm_address: a.signingKeys.find((k) => k.chain === 'ethereum')?.address ?? null,
      signing_keys: a.signingKeys.map((k) => ({ chain: k.chain, curve: k.curve, public_key: k.public_key, address: k.address })),
      runtime_ids: [],
      automation_ids: [],
    },
  };
}

export const presentClaimPreview = (p: ClaimPreview): z.output<typeof ClaimPreviewSchema> => ({
  app_name: p.target.app_name, app_slug: p.target.app_slug, app_logo_url: p.target.app_logo_url, auth_mode: p.target.auth_mode,
  vault_ids: [p.target.plan.vault.id], agent_ids: p.target.plan.agents.map((a) => a.id), policy_count: p.policyCount,
  status: p.target.connection_status as 'connected', already_claimed: p.alreadyClaimed, expired: p.expired, return_to: p.target.return_to,
});

export const presentClaimRedeemed = (r: ClaimRedeemed): z.output<typeof ClaimRedeemSchema> => ({
  status: 'claimed', connection_id: r.target.connection_id, vault_ids: [r.target.plan.vault.id], agent_ids: r.target.plan.agents.map((a) => a.id),
  return_to: r.target.return_to, dashboard_url: r.dashboardUrl,
});
