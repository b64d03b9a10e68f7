// Token issuance (§4.2): signup, password login, API-key exchange, refresh, logout.
import { z } from 'zod';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { emailField, passwordField, displayNameField } from '../../../domain/accounts/schemas.ts';
import { hashPassword } from '../../../domain/crypto/passwords.ts';
import { newOrganization, newUser, flushUnique, ensureOrganization } from '../../../domain/accounts/users.ts';
import { passwordLogin } from '../../../domain/accounts/login.ts';
import { tokenResponse } from '../../../domain/accounts/presenters.ts';
import { USER_TOKEN_TTL_SECONDS } from '../../../domain/auth/jwt.ts';
import { Problem, badRequest, unauthorized } from '../../../domain/errors.ts';
import type { ApiServices } from '../../services.ts';

async function issueUserToken(s: ApiServices, userId: string, orgId: string) {
  const t = await s.jwt.issue({ type: 'user', id: userId, orgId }, USER_TOKEN_TTL_SECONDS);
  return tokenResponse(t.token, t.expiresIn);
}

export const tokenRoutes = [
  route({
    method: 'POST', path: '/v1/auth/signup', tag: 'Authentication', auth: 'public',
    summary: 'Create an account and its organization (the caller becomes owner)',
    body: z.object({ email: emailField, password: passwordField, display_name: displayNameField.optional() }),
    success: { status: 200, description: 'Account created; token response' }, errors: { 400: 'Invalid input', 409: 'E-mail already registered' },
    async handler({ ctx, body, services: s }) {
      const em = s.em();
      const passwordHash = await hashPassword(body.password);
      const user = await em.transactional(async (tx) => {
        const org = newOrganization(tx, body.display_name ? `${body.display_name}'s organization` : `${body.email}'s organization`);
        await tx.flush();
        const u = newUser(tx, { email: body.email, passwordHash, displayName: body.display_name ?? null, orgId: org.id, role: 'owner' });
        await flushUnique(tx, 'An account with this e-mail already exists');
        return u;
      });
      await auditAction(ctx, s, 'user.signup', { actor: { type: 'user', id: user.id, orgId: user.orgId! }, resourceType: 'user', resourceId: user.id });
      json(ctx, 200, { message: 'Account created', email: user.email, ...(await issueUserToken(s, user.id, user.orgId!)) });
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/token', tag: 'Authentication', auth: 'public',
    summary: 'Log in with e-mail and password',
    body: z.object({ email: z.string().trim().min(1).max(254).transform((e) => e.toLowerCase()), password: z.string().min(1).max(1024) }),
    success: { status: 200, description: 'Token response' }, errors: { 401: 'Bad credentials' },
    async handler({ ctx, body, services: s }) {
      const em = s.em();
      let user;
      try {
        user = await passwordLogin(em, body.email, body.password);
      } catch (e) {
        await auditAction(ctx, s, 'auth.failure', { orgId: null, details: { method: 'password' } });
        throw e;
      }
      const orgId = await ensureOrganization(em, user);
      await auditAction(ctx, s, 'auth.success', { actor: { type: 'user', id: user.id, orgId }, details: { method: 'password' } });
      json(ctx, 200, await issueUserToken(s, user.id, orgId));
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/api-key-token', tag: 'Authentication', auth: 'public',
    summary: 'Exchange a personal xck_ API key for a JWT',
    body: z.object({ api_key: z.string().min(1).max(256) }),
    success: { status: 200, description: 'Token response' }, errors: { 401: 'Unknown, revoked or expired key' },
    async handler({ ctx, body, services: s }) {
      const p = await s.apiKeys.resolve(body.api_key);
      if (!p) throw unauthorized('API key is invalid, revoked or expired');
      await auditAction(ctx, s, 'auth.success', { actor: p, details: { method: 'api_key', key_id: p.keyId } });
      json(ctx, 200, await issueUserToken(s, p.id, p.orgId));
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/refresh', tag: 'Authentication', auth: 'public',
    summary: 'Refresh tokens are not implemented: always 400',
    success: { status: 200, description: 'OK' }, errors: { 400: 'Refresh tokens are not yet implemented' },
    async handler() {
      throw badRequest('Refresh tokens are not yet implemented; request a new access token instead');
    },
  }),
  route({
    method: 'DELETE', path: '/v1/auth/token', tag: 'Authentication', auth: 'principal',
    summary: 'Revoke the access token used for this request',
    success: { status: 204, description: 'Revoked' }, errors: { 400: 'The credential is an API key, not a token' },
    async handler({ ctx, principal, services: s }) {
      if (principal.via !== 'jwt' || !principal.jti || !principal.expiresAt) {
        throw new Problem(400, 'This request used an API key; revoke keys with DELETE /v1/auth/api-keys/{key_id}');
      }
      await s.revocations.revokeToken(s.em(), principal.jti, principal.expiresAt);
      await auditAction(ctx, s, 'auth.logout', { details: { jti: principal.jti } });
      ctx.status = 204;
    },
  }),
];
