// Listing secrets: metadata only, never a value, and only the paths the caller may read.
// Keyset pagination on the path keeps pages stable while secrets are written.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/principal.ts';
import type { AccessFacts } from './secret-lookup.ts';
import { decideSecretAction } from './secret-access.ts';
import { isUnderPrefix } from '../paths/secret-path.ts';
import { secretsAfter, type SecretMetaRow } from './secret-repository.ts';
import { z } from 'zod';
import { cursorCodec, isCursorText } from '../paging/cursor.ts';

const BATCH = 200;

/** Pages of a vault's secrets: the key is the last path served. */
export const secretListCursor = cursorCodec('secrets', z.string().min(1).max(1024).refine(isCursorText));

/** `after`: the decoded cursor (secretListCursor), the path the page starts after. */
export type SecretListQuery = { prefix: string; limit: number; after?: string };
export type SecretPage = { secrets: SecretMetaRow[]; nextCursor: string | null };

export async function listSecrets(em: EntityManager, principal: Principal, clientIp: string, facts: AccessFacts, q: SecretListQuery): Promise<SecretPage> {
  const out: SecretMetaRow[] = [];
  let after = q.after ?? '';
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
  return { secrets: out, nextCursor: more ? secretListCursor.encode(out[out.length - 1]!.path) : null };
}
