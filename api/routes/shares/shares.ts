// Sharing (§4.6, §5.9): create a share of a secret, the creator's and the recipient's lists,
// accept, decline, revoke, and open. Opening is public (no auth stage): the handler checks the
// share's own rules, and verifies a bearer itself when the share is addressed to a user or agent.
// The passphrase travels in the X-Share-Passphrase header or a POST body, never in the URL.
import { route, type AppContext, type HandlerInput } from '../../route.ts';
import { optionalPrincipal } from '../../pipeline/bearer.ts';
import { createShareBody, secretShareParams, shareParams, accessShareBody, passphraseHeader, PASSPHRASE_HEADER } from './schema.ts';
import { ShareSchema, ShareListSchema, SharedSecretSchema, presentShare, presentShareList, presentSharedSecret } from '../../presenters/shares.ts';

const OPEN_ERRORS = {
  401: 'The share is addressed to a user or agent and no bearer was sent',
  403: 'Wrong or missing passphrase, address outside the allowlist, another recipient, or not accepted yet',
  404: 'Unknown, revoked or declined share',
  410: 'Expired, opened the maximum number of times, or its creator can no longer read the secret',
  429: 'Too many opens from this address or of this share, or locked after wrong passphrases',
};

async function openShare({ ctx, params, action, services: s }: HandlerInput<unknown, unknown, { share_id: string }>, passphrase: string | undefined) {
  const bearer = await optionalPrincipal(ctx.get('authorization') || undefined, s);
  return presentSharedSecret(await s.shareAccess.open(action, params.share_id, { passphrase, bearer }));
}

const headerPassphrase = (ctx: AppContext) => passphraseHeader(ctx.get(PASSPHRASE_HEADER) || undefined);

export const shareRoutes = [
  route({
    method: 'POST', path: '/v1/secrets/:secret_id/share', tag: 'Sharing', auth: 'principal', billable: 'create_share',
    summary: 'Share a secret with a user, an agent, an e-mail address or anyone with the link', params: secretShareParams, body: createShareBody,
    success: { status: 201, description: 'The share; share_url opens it', schema: ShareSchema },
    errors: {
      403: 'Not allowed to read the secret, a recipient outside the organization, or a recipient type agents may not use',
      404: 'Secret not found', 429: 'More than 10 shares a minute in this organization',
    },
    handler: async ({ params, body, action, services: s }) => presentShare(await s.shares.create(action, params.secret_id, body)),
  }),
  route({
    method: 'GET', path: '/v1/shares/outbound', tag: 'Sharing', auth: 'principal',
    summary: 'Shares you created and have not revoked',
    success: { status: 200, description: 'The shares', schema: ShareListSchema },
    handler: async ({ action, services: s }) => presentShareList(await s.shares.outbound(action)),
  }),
  route({
    method: 'GET', path: '/v1/shares/inbound', tag: 'Sharing', auth: 'principal',
    summary: 'Shares sent to you (and, once your e-mail is verified, to your address)',
    success: { status: 200, description: 'The shares', schema: ShareListSchema },
    handler: async ({ action, services: s }) => presentShareList(await s.shares.inbound(action)),
  }),
  route({
    method: 'POST', path: '/v1/shares/:share_id/accept', tag: 'Sharing', auth: 'principal',
    summary: 'Accept a share sent to you (user and agent shares open only once accepted)', params: shareParams, secretParams: ['share_id'],
    success: { status: 204, description: 'Accepted' },
    errors: { 400: 'A link share', 403: 'Addressed to someone else', 404: 'Unknown or revoked', 409: 'Declined before', 410: 'Expired' },
    handler: async ({ params, action, services: s }) => s.shares.accept(action, params.share_id),
  }),
  route({
    method: 'POST', path: '/v1/shares/:share_id/decline', tag: 'Sharing', auth: 'principal',
    summary: 'Decline a share sent to you', params: shareParams, secretParams: ['share_id'],
    success: { status: 204, description: 'Declined' },
    errors: { 400: 'A link share', 403: 'Addressed to someone else', 404: 'Unknown or revoked' },
    handler: async ({ params, action, services: s }) => s.shares.decline(action, params.share_id),
  }),
  // The reference's path, and the CLI's.
  ...['/v1/share/:share_id', '/v1/shares/:share_id'].map((path) => route({
    method: 'DELETE', path, tag: 'Sharing', auth: 'principal',
    summary: path.startsWith('/v1/shares/') ? "Revoke a share (the CLI's path; same as DELETE /v1/share/{share_id})" : 'Revoke a share (its creator only)',
    params: shareParams, secretParams: ['share_id'],
    success: { status: 204, description: 'Revoked' },
    errors: { 403: 'Not its creator', 404: 'Unknown or already revoked' },
    handler: async ({ params, action, services: s }) => s.shares.revoke(action, params.share_id),
  })),
  route({
    method: 'GET', path: '/v1/share/:share_id', tag: 'Sharing', auth: 'public',
    summary: "Open a share: the secret's latest value (passphrase in X-Share-Passphrase; bearer for user and agent shares)", params: shareParams, secretParams: ['share_id'],
    success: { status: 200, description: 'The shared secret', schema: SharedSecretSchema },
    errors: OPEN_ERRORS,
    handler: async (input) => openShare(input, headerPassphrase(input.ctx)),
  }),
  route({
    method: 'POST', path: '/v1/shares/:share_id/access', tag: 'Sharing', auth: 'public',
    summary: 'Open a share with the passphrase in the body (the Python client\'s form)', params: shareParams, secretParams: ['share_id'], body: accessShareBody,
    success: { status: 200, description: 'The shared secret', schema: SharedSecretSchema },
    errors: OPEN_ERRORS,
    handler: async (input) => openShare(input, input.body?.passphrase || headerPassphrase(input.ctx)),
  }),
];
