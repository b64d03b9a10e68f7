// The user's own records as a JSON archive. Never password hashes, key digests or secret values.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, Organization, User } from '../../db/entities/index.ts';
import { presentApiKey } from './presenters.ts';
import { loadProfile } from './profile.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import { presentAuditEvent } from '../audit/audit-query.ts';
import { iso } from '../time.ts';
import { notFound } from '../errors.ts';

export async function exportAccountData(em: EntityManager, hot: HotReads, userId: string) {
  const user = await em.findOne(User, { id: userId });
  if (!user) throw notFound('Account');
  const org = user.orgId ? await em.findOne(Organization, { id: user.orgId }) : null;
  const keys = await em.find(ApiKey, { userId }, { orderBy: { createdAt: 'asc' } });
  const passkeys = await em.execute<{ id: string; name: string | null; created_at: string; last_used_at: string | null }[]>(
    'SELECT id, name, created_at, last_used_at FROM passkeys WHERE user_id = ?', [userId]);
  const events = await em.execute<Parameters<typeof presentAuditEvent>[0][]>(
    "SELECT * FROM audit_events WHERE actor_type = 'user' AND actor_id = ? ORDER BY seq DESC LIMIT 1000", [userId]);
  return {
    format: 'vault-account-export/1',
    exported_at: new Date().toISOString(),
    user: await loadProfile(hot, userId),
    organization: org ? { id: org.id, name: org.name, billing_tier: org.billingTier, role: user.role, created_at: iso(org.createdAt) } : null,
    settings: { require_passkey_for_vaults: user.requirePasskeyForVaults, marketing_emails: user.marketingEmails },
    api_keys: keys.map(presentApiKey),
    passkeys: passkeys.map((p) => ({ id: p.id, name: p.name, created_at: iso(p.created_at), last_used_at: iso(p.last_used_at) })),
    audit_events: events.map(presentAuditEvent),
  };
}
