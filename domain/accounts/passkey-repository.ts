// The passkey tables (migration 0001 `passkeys`, 0030 `passkey_challenges`). Each "good once" is one
// statement: a challenge is taken by a DELETE … RETURNING, a counter moves by a conditional UPDATE,
// so two parallel ceremonies can never both use one challenge or one signature counter value.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query, withOrmErrors } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

type Row<T extends keyof Database> = Selectable<Database[T]>;

export type ChallengePurpose = 'register' | 'assert' | 'reauth' | 'vault';
export type StoredPasskey = Pick<Row<'passkeys'>, 'id' | 'user_id' | 'credential_id' | 'public_key' | 'counter' | 'transports'>;
export type ListedPasskey = Pick<Row<'passkeys'>, 'id' | 'credential_id' | 'name' | 'transports' | 'created_at' | 'last_used_at'>;

/** Stores a challenge's digest; expired challenges (anyone's) are dropped on the way, by index. */
export async function insertChallenge(em: EntityManager, c: { digest: string; purpose: ChallengePurpose; userId: string | null; ttlSeconds: number }): Promise<void> {
  const q = query(em);
  await q.deleteFrom('passkey_challenges').where('expires_at', '<=', sql<Date>`now()`).execute();
  await q.insertInto('passkey_challenges').values({
    challenge_digest: c.digest, purpose: c.purpose, user_id: c.userId,
    expires_at: sql<Date>`now() + make_interval(secs => ${c.ttlSeconds})`,
  }).execute();
}

/** Takes (deletes) a live challenge for this purpose and user (null: a sign-in's); false when there is none. */
export async function takeChallenge(em: EntityManager, digest: string, purpose: ChallengePurpose, userId: string | null): Promise<boolean> {
  const row = await query(em).deleteFrom('passkey_challenges')
    .where('challenge_digest', '=', digest).where('purpose', '=', purpose)
    .where('user_id', userId === null ? 'is' : '=', userId).where('expires_at', '>', sql<Date>`now()`)
    .returning('challenge_digest').executeTakeFirst();
  return row !== undefined;
}

export function passkeysOf(em: EntityManager, userId: string): Promise<ListedPasskey[]> {
  return query(em).selectFrom('passkeys').select(['id', 'credential_id', 'name', 'transports', 'created_at', 'last_used_at'])
    .where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

/** The credential ids (and transports) of an active account's passkeys, by e-mail: a sign-in's allow list. */
export function credentialsOfEmail(em: EntityManager, email: string): Promise<Pick<Row<'passkeys'>, 'credential_id' | 'transports'>[]> {
  return query(em).selectFrom('passkeys').innerJoin('users', 'users.id', 'passkeys.user_id')
    .select(['passkeys.credential_id', 'passkeys.transports'])
    .where(sql<boolean>`lower(users.email) = lower(${email})`).where('users.status', '=', 'active')
    .orderBy('passkeys.created_at').execute();
}

/** A passkey by its credential id, with its active owner; undefined when unknown or the owner is gone. */
export function passkeyByCredential(em: EntityManager, credentialId: string): Promise<StoredPasskey | undefined> {
  return query(em).selectFrom('passkeys').innerJoin('users', 'users.id', 'passkeys.user_id')
    .select(['passkeys.id', 'passkeys.user_id', 'passkeys.credential_id', 'passkeys.public_key', 'passkeys.counter', 'passkeys.transports'])
    .where('passkeys.credential_id', '=', credentialId).where('users.status', '=', 'active').executeTakeFirst();
}

/** Stores a verified credential; a credential id already registered (by anyone) is a unique violation. */
export async function insertPasskey(em: EntityManager, k: { userId: string; credentialId: string; publicKey: Uint8Array; counter: number; transports: string[]; name: string | null }): Promise<string> {
  const id = randomUUID();
  await withOrmErrors(em, query(em).insertInto('passkeys').values({
    id, user_id: k.userId, credential_id: k.credentialId, public_key: Buffer.from(k.publicKey), counter: k.counter,
    transports: k.transports, name: k.name,
  }).execute());
  return id;
}

/**
 * Records a use: the new counter only if it is higher than the stored one, or both are 0
 * (authenticators without a counter). False means the counter did not move forward: a cloned
 * authenticator, or a parallel use of the same signature.
 */
export async function advanceCounter(em: EntityManager, passkeyId: string, counter: number): Promise<boolean> {
  const row = await query(em).updateTable('passkeys').set({ counter, last_used_at: sql<Date>`now()` })
    .where('id', '=', passkeyId)
    .where((eb) => (counter === 0 ? eb('counter', '=', 0) : eb('counter', '<', counter)))
    .returning('id').executeTakeFirst();
  return row !== undefined;
}

/** Locks the account's row for a passkey removal: whether vault unlock is on, and how many passkeys it has. */
export async function lockForRemoval(tx: EntityManager, userId: string): Promise<{ requirePasskey: boolean; count: number }> {
  const user = await query(tx).selectFrom('users').select('require_passkey_for_vaults').where('id', '=', userId).forUpdate().executeTakeFirstOrThrow();
  const n = await query(tx).selectFrom('passkeys').select(sql<number>`count(*)::int`.as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return { requirePasskey: user.require_passkey_for_vaults, count: n.n };
}

export async function deletePasskey(tx: EntityManager, userId: string, passkeyId: string): Promise<boolean> {
  const row = await query(tx).deleteFrom('passkeys').where('id', '=', passkeyId).where('user_id', '=', userId).returning('id').executeTakeFirst();
  return row !== undefined;
}
