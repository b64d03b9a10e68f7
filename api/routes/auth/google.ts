// Google sign-in (§4.2, §5 rule 2): a Google ID token, verified locally, for the token response
// password login gives. Off (501) unless GOOGLE_CLIENT_IDS is set.
import { route } from '../../route.ts';
import { googleSignInBody } from './schema.ts';
import { LoginSchema, presentLogin } from '../../presenters/accounts.ts';

export const googleRoutes = [
  route({
    method: 'POST', path: '/v1/auth/google', tag: 'Authentication', auth: 'public',
    summary: "Sign in with a Google ID token (an unknown verified e-mail gets a new account without a password, owner of its own organization)",
    body: googleSignInBody,
    success: { status: 200, description: 'Token response, or `{mfa_required, mfa_token}` when the account has TOTP on', schema: LoginSchema },
    errors: {
      401: "The ID token is not valid: bad signature or algorithm, another audience or issuer, expired, or an e-mail Google has not verified (one message for all)",
      409: 'An account with this e-mail exists and has not verified its address (verify it first), or is being deleted',
      429: 'Too many rejected ID tokens from this address: wait Retry-After seconds',
      501: 'Google sign-in is not configured on this server (GOOGLE_CLIENT_IDS)',
      503: "Google's signing keys could not be loaded",
    },
    handler: async ({ body, action, services: s }) => presentLogin(await s.google.signIn(action, body.id_token)),
  }),
];
