// The secret commands with their lookup, policy cache and read cache, built the same way for the
// api (requests) and the worker (automation steps acting as an agent).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { HotReads } from '../db/hot-reads.ts';
import type { Core } from './core.ts';
import type { ActionAudit } from '../domain/audit/action-audit.ts';
import { SecretCommands } from '../domain/secrets/secret-commands.ts';
import { SecretLookup } from '../domain/secrets/secret-lookup.ts';
import { SecretReader } from '../domain/secrets/secret-read.ts';
import { ReadCache } from '../domain/secrets/read-cache.ts';
import { PasskeyTokens } from '../domain/auth/passkey-tokens.ts';
import { VersionedPolicyCache } from '../domain/access/policy-cache.ts';

/** The one secret lookup (with its policy cache) of a process: secrets and shares use it. */
export const secretLookup = (hot: HotReads): SecretLookup => new SecretLookup(hot, new VersionedPolicyCache());

/** Secrets: one lookup shared by the reader (with its read cache) and the commands. */
export function secretCommands(d: { db: () => EntityManager; hot: HotReads; kms: Core['kms']; audit: ActionAudit; pepper: Core['pepper']; lookup?: SecretLookup }): SecretCommands {
  const lookup = d.lookup ?? secretLookup(d.hot);
  const reader = new SecretReader({ db: d.db, lookup, kms: d.kms, audit: d.audit, cache: new ReadCache(), passkeyTokens: new PasskeyTokens(d.pepper) });
  return new SecretCommands({ db: d.db, lookup, reader, kms: d.kms, audit: d.audit });
}
