// Response shapes of account records. Never a password hash or a key digest.
import type { User } from '../../db/entities/index.ts';
import type { ApiKey } from '../../db/entities/index.ts';
import { iso } from '../time.ts';

export function presentMe(u: User) {
  return {
    id: u.id,
    email: u.email,
    display_name: u.displayName,
    auth_method: u.authMethod,
    role: u.role,
    org_id: u.orgId,
    email_verified: u.emailVerified,
    marketing_emails: u.marketingEmails,
    totp_enabled: false,
    has_password: u.passwordHash !== null,
    created_at: iso(u.createdAt),
  };
}

export function presentApiKey(k: ApiKey) {
  return {
    id: k.id,
    name: k.name,
    key_prefix: k.keyPrefix,
    scopes: k.scopes,
    is_active: k.isActive,
    created_at: iso(k.createdAt),
    expires_at: iso(k.expiresAt),
    last_used_at: iso(k.lastUsedAt),
  };
}

export function tokenResponse(token: string, expiresIn: number) {
  return { access_token: token, token_type: 'Bearer', expires_in: expiresIn };
}
