// Listing secrets: metadata only, never a value, and only the paths the caller may read.
// Keyset pagination on the path keeps pages stable while secrets are written.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/principal.ts';
import type { AccessFacts } from './secret-lookup.ts';
import { decideSecretAction } from './secret-access.ts';
import { isUnderPrefix } from '../paths/secret-path.ts';
import { secretsAfter, type SecretMetaRow } from './secret-repository.ts';
import { badRequest } from '../errors.ts';

const BATCH = 200;

const encodeCursor = (path: string) => Buffer.from(path, 'utf8').toString('base64url');
function decodeCursor(c: string): string {
  const s = Buffer.from(c, 'base64url').toString('utf8');
  if (s.length === 0 || s.length > 1024) throw badRequest('cursor is not a cursor returned by this endpoint');
  return s;
}

export type SecretPage = { secrets: SecretMetaRow[]; nextCursor: string | null };

export async function listSecrets(em: EntityManager, principal: Principal, clientIp: string, facts: AccessFacts, q: { prefix: string; limit: number; cursor?: string }): Promise<SecretPage> {
  const out: SecretMetaRow[] = [];
  let after = q.cursor ? decodeCursor(q.cursor) : '';
  let exhausted = false;
  // Filtering by permission can thin a page; read on in batches until it is full.
  for (let round = 0; round < 20 && out.length < q.limit && !exhausted; round++) {
    const batch = await secretsAfter(em, facts.vaultId, after, q.prefix, BATCH);
    if (batch.length < BATCH) exhausted = true;
    for (const r of batch) {
      after = r.path;
      if (!isUnderPrefix(r.path, q.prefix)) continue;
      if (!decideSecretAction(principal, clientIp, facts, r.path, 'read').allowed) continue;
      out.push(r);
      if (out.length === q.limit) break;
    }
  }
  // A full page may be followed by an empty one; that is cheaper than looking ahead.
  const more = out.length === q.limit;
  return { secrets: out, nextCursor: more ? encodeCursor(out[out.length - 1]!.path) : null };
}
