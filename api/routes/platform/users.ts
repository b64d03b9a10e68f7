// Platform users (spec §4.15, issue 35 §2): an app provisions one of its users, or finds them again,
// with its plt_ key (domain/platform/platform-users.ts).
import { route } from '../../route.ts';
import { upsertUserBody } from './schema.ts';
import { PlatformUserSchema, presentPlatformUser } from '../../presenters/platform.ts';

export const platformUserRoutes = [
  route({
    method: 'POST', path: '/v1/platform/users/upsert', tag: 'Platform', auth: 'platform',
    summary: "Provision or find a user of the app, by an OIDC subject token of the app's IdP or by e-mail",
    body: upsertUserBody,
    success: {
      status: 201, description: 'A new user and their connection', schema: PlatformUserSchema,
      also: [{ status: 200, description: 'A user the app is connected to, found again' }],
    },
    errors: {
      400: 'Neither subject_token nor email; the app has no OIDC settings for a token; a new user without an e-mail',
      401: 'The subject token was refused (named: signature, issuer, audience, expired …)',
      403: "Not the app's plt_ key; resource_limit_exceeded (max_connected_users)",
      409: 'link_required: the e-mail has an account not connected to this app (consent first); or the e-mail is connected under another subject',
      503: "The app's JWKS could not be fetched",
    },
    handler: async ({ ctx, body, action, services: s }) => {
      const u = await s.platformUsers.upsert(action, body);
      if (!u.isNew) ctx.state.successStatus = 200;
      return presentPlatformUser(u);
    },
  }),
];
