// Listing secrets: metadata only, never a value, and only the paths the caller may read.
// Keyset pagination on the path keeps pages stable while secrets are written.
import type { EntityManager } from '@mikro-orm/postgresql';
import { decide, type Caller, type PolicyRow } from '../policies/access.ts';
import { isUnderPrefix } from '../paths/secret-path.ts';
import type { VaultRow } from '../vaults/vault-repository.ts';
import { iso } from '../time.ts';
import { badRequest } from '../errors.ts';

type MetaRow = { id: string; path: string; type: string; current_version: number; metadata: Record<string, unknown>; description: string | null; created_at: string; updated_at: string; expires_at: string | null };

export function presentSecretMeta(r: MetaRow) {
  return {
    id: r.id, path: r.path, type: r.type, version: r.current_version, metadata: r.metadata, description: r.description,
    created_at: iso(r.created_at), updated_at: iso(r.updated_at), expires_at: iso(r.expires_at),
    is_disabled: false, is_expired: r.expires_at !== null && new Date(r.expires_at).getTime() <= Date.now(),
  };
}

const encodeCursor = (path: string) => Buffer.from(path, 'utf8').toString('base64url');
function decodeCursor(c: string): string {
  const s = Buffer.from(c, 'base64url').toString('utf8');
  if (s.length === 0 || s.length > 1024) throw badRequest('cursor is not a cursor returned by this endpoint');
  return s;
}

export async function listSecrets(em: EntityManager, c: Caller, vault: VaultRow, policies: PolicyRow[], q: { prefix: string; limit: number; cursor?: string }) {
  const out: MetaRow[] = [];
  let after = q.cursor ? decodeCursor(q.cursor) : '';
  let exhausted = false;
  // Filtering by permission can thin a page; read on in batches until it is full.
  for (let round = 0; round < 20 && out.length < q.limit && !exhausted; round++) {
    const batch = await em.execute<MetaRow[]>(
      `SELECT id, path, type, current_version, metadata, description, created_at, updated_at, expires_at FROM secrets
       WHERE vault_id = ? AND deleted_at IS NULL AND path COLLATE "C" > ? AND path LIKE ? ESCAPE '\\' ORDER BY path COLLATE "C" LIMIT 200`,
      [vault.id, after, `${q.prefix.replace(/[\\%_]/g, (m) => `\\${m}`)}%`]);
    if (batch.length < 200) exhausted = true;
    for (const r of batch) {
      after = r.path;
      if (!isUnderPrefix(r.path, q.prefix)) continue;
      if (!decide(c, vault, policies, r.path, 'read').allowed) continue;
      out.push(r);
      if (out.length === q.limit) break;
    }
  }
  // A full page may be followed by an empty one; that is cheaper than looking ahead.
  const more = out.length === q.limit;
  return { secrets: out.map(presentSecretMeta), count: out.length, next_cursor: more ? encodeCursor(out[out.length - 1]!.path) : null };
}

export async function listVersions(em: EntityManager, vault: VaultRow, path: string) {
  const rows = await em.execute<{ id: string; version: number; type: string; metadata: Record<string, unknown>; description: string | null; created_at: string; expires_at: string | null; disabled_at: string | null; created_by: string }[]>(
    `SELECT s.id, v.version, v.type, v.metadata, v.description, v.created_at, v.expires_at, v.disabled_at, v.created_by
     FROM secrets s JOIN secret_versions v ON v.secret_id = s.id
     WHERE s.vault_id = ? AND s.path = ? AND s.deleted_at IS NULL ORDER BY v.version DESC`, [vault.id, path]);
  return rows.map((r) => ({
    id: r.id, path, type: r.type, version: r.version, metadata: r.metadata, description: r.description, created_by: r.created_by,
    created_at: iso(r.created_at), expires_at: iso(r.expires_at), is_disabled: r.disabled_at !== null,
  }));
}
