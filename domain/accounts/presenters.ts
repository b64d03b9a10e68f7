// Response shapes of account records. Never a password hash or a key digest.
import type { ApiKey } from '../../db/entities/index.ts';
import { iso } from '../time.ts';

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
