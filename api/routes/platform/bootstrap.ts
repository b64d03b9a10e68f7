// Bootstrap and claim (spec §4.15, issue 35 §3): the app provisions a connected user from a
// template (domain/platform/bootstrap-commands.ts) and hands them a claim link; the public claim
// routes preview and redeem it (domain/platform/claim-commands.ts). The claim token is a path
// credential: masked wherever the path is recorded.
import { z } from 'zod';
import { route } from '../../route.ts';
import { idParam } from '../../input/fields.ts';
import {
  BootstrapSchema, ClaimLinkSchema, ClaimPreviewSchema, ClaimRedeemSchema, presentBootstrap, presentClaimLink, presentClaimPreview, presentClaimRedeemed,
} from '../../presenters/platform-bootstrap.ts';

const connectionParams = z.object({ connectionId: idParam });
const claimParams = z.object({ token: z.string().min(1).max(256) });
const returnTo = z.string().min(1).max(2048);

const bootstrapBody = z.object({ template_id: idParam.optional(), return_to: returnTo.optional() }).optional()
  .transform((b) => ({ templateId: b?.template_id, returnTo: b?.return_to }));
const reissueBody = z.object({ return_to: returnTo.optional() }).optional().transform((b) => ({ returnTo: b?.return_to }));

export const platformBootstrapRoutes = [
  route({
    method: 'POST', path: '/v1/platform/connections/:connectionId/bootstrap', tag: 'Platform', auth: 'platform',
    summary: "Provision the connected user's vault, agents, policies and signing keys from a template, as one durable workflow; answers once with the agent key and a claim link",
    params: connectionParams, body: bootstrapBody,
    success: { status: 201, description: 'Provisioned: the summary, the first agent\'s key (shown once) and a 10-minute claim link', schema: BootstrapSchema },
    errors: {
      400: 'No active template (name one, or create one); return_to not one of the app\'s redirect_uris',
      403: "Not the app's plt_ key",
      404: 'No such live connection of this app; no such template',
      409: 'Bootstrapped already (reissue-claim gives a new claim link)',
      503: 'Still running: call again for the answer (nothing is provisioned twice)',
    },
    handler: async ({ params, body, action, services: s }) => presentBootstrap(await s.platformBootstraps.bootstrap(action, params.connectionId, body)),
  }),
  route({
    method: 'POST', path: '/v1/platform/connections/:connectionId/reissue-claim', tag: 'Platform', auth: 'platform',
    summary: 'A new 10-minute claim link for a bootstrapped connection, without provisioning again (the previous link stops working)',
    params: connectionParams, body: reissueBody,
    success: { status: 200, description: 'The new claim link', schema: ClaimLinkSchema },
    errors: {
      400: 'Not bootstrapped yet; return_to not one of the app\'s redirect_uris', 403: "Not the app's plt_ key",
      404: 'No such live connection of this app', 409: 'Claimed already',
    },
    handler: async ({ params, body, action, services: s }) => presentClaimLink(await s.platformBootstraps.reissueClaim(action, params.connectionId, body)),
  }),
  route({
    method: 'GET', path: '/v1/platform/claim/:token', tag: 'Platform', auth: 'public',
    summary: 'Preview a claim link: the app and what it provisioned (the token is the credential)',
    params: claimParams, secretParams: ['token'],
    success: { status: 200, description: 'The preview, with whether the link is used or expired', schema: ClaimPreviewSchema },
    errors: { 404: 'No such claim token (or one replaced by a reissue)' },
    handler: async ({ params, services: s }) => presentClaimPreview(await s.platformClaims.preview(params.token)),
  }),
  route({
    method: 'POST', path: '/v1/platform/claim/:token', tag: 'Platform', auth: 'public',
    summary: 'Redeem a claim link: the resources become the user\'s, and the app can no longer read their secret values',
    params: claimParams, secretParams: ['token'],
    success: { status: 200, description: 'Claimed', schema: ClaimRedeemSchema },
    errors: { 404: 'No such claim token', 409: 'Used already', 410: 'Expired (the app can reissue one)' },
    handler: async ({ params, action, services: s }) => presentClaimRedeemed(await s.platformClaims.redeem(action, params.token)),
  }),
];
