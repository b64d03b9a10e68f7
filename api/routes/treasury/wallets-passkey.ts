// Transaction-bound passkey tokens for treasury sends (reference facts §4.3: tx-assert/begin
// {tx_digest}, complete → a passkey token sent as X-Passkey-Token on POST
// /v1/treasury/wallets/{chain}/send). Declared with the treasury routes because only the send
// spends them; the rules are domain/treasury/wallets/transfer-passkeys.ts.
import { z } from 'zod';
import { route } from '../../route.ts';
import { passkeyAssertionBody } from '../auth/schema.ts';
import { PasskeyAssertionOptionsSchema, PasskeyTokenSchema, presentAssertionOptions } from '../../presenters/passkeys.ts';

const txAssertBeginBody = z.object({
  /** SHA-256 hex of `chain|to|value_wei|data` of the transfer to approve (docs/treasury.md). */
  tx_digest: z.string().trim().regex(/^(0x)?[0-9a-fA-F]{64}$/, { message: 'must be the SHA-256 hex digest of chain|to|value_wei|data' })
    .transform((d) => d.replace(/^0x/, '').toLowerCase()),
});

export const treasuryPasskeyRoutes = [
  route({
    method: 'POST', path: '/v1/auth/passkeys/tx-assert/begin', tag: 'Treasury Wallets', auth: 'user',
    summary: "Begin approving one treasury transfer with a passkey: a challenge for the caller's passkeys, bound to tx_digest",
    body: txAssertBeginBody,
    success: { status: 200, description: 'Assertion options', schema: PasskeyAssertionOptionsSchema },
    errors: { 400: 'The account has no passkey, or tx_digest is not a SHA-256 hex digest', 403: 'An agent, or a plan without treasury wallets' },
    handler: async ({ body, action, services: s }) => presentAssertionOptions(await s.treasuryPasskeys.begin(action, body.tx_digest)),
  }),
  route({
    method: 'POST', path: '/v1/auth/passkeys/tx-assert/complete', tag: 'Treasury Wallets', auth: 'user',
    summary: 'Complete the approval: `{passkey_token}` for X-Passkey-Token on the send of exactly that transfer, single-use, valid 5 minutes',
    body: passkeyAssertionBody,
    success: { status: 200, description: 'Passkey token', schema: PasskeyTokenSchema },
    errors: {
      401: "Invalid assertion, not one of the caller's passkeys, or a challenge unknown, used, expired or not issued by tx-assert/begin",
      403: 'An agent, or a plan without treasury wallets',
      429: 'Too many failed assertions for this account: wait Retry-After seconds',
    },
    handler: async ({ body, action, services: s }) => {
      const t = await s.treasuryPasskeys.complete(action, {
        credentialId: body.credential_id, authenticatorData: body.authenticator_data, clientDataJson: body.client_data_json,
        signature: body.signature, userHandle: body.user_handle,
      });
      return { passkey_token: t.token, expires_in: t.expiresIn };
    },
  }),
];
