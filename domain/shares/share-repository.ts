// The shares table as the share commands read and change it. Commands decide; this file only reads
// and writes. Counters (opens, failed passphrases) change in single conditional statements.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
// Shares are made and received by humans and agents only (never a platform connection).
type PrincipalType = 'user' | 'agent';

type Shares = Selectable<Database['shares']>;

export type RecipientType = Shares['recipient_type'];

/** A share as the commands see it: never its link digest, passphrase failures or revocation; the sealed link is a Buffer (BlobType). */
export type ShareRow = Pick<Shares, 'id' | 'org_id' | 'secret_id' | 'vault_id' | 'link_prefix' | 'created_by' | 'created_by_type' | 'created_ip'
  | 'recipient_type' | 'recipient_principal_type' | 'recipient_id' | 'recipient_email' | 'expires_at' | 'max_access_count' | 'access_count'
  | 'passphrase_hash' | 'ip_allowlist' | 'locked_until' | 'accepted_at' | 'accepted_by' | 'declined_at' | 'created_at'> & {
  link_sealed: Buffer;
  /** From the secret: its path, and whether it was deleted since. */
  secret_path: string; secret_deleted: boolean;
};

const SHARE_COLUMNS = ['sh.id', 'sh.org_id', 'sh.secret_id', 'sh.vault_id', 'sh.link_sealed', 'sh.link_prefix', 'sh.created_by', 'sh.created_by_type',
  'sh.created_ip', 'sh.recipient_type', 'sh.recipient_principal_type', 'sh.recipient_id', 'sh.recipient_email', 'sh.expires_at',
  'sh.max_access_count', 'sh.access_count', 'sh.passphrase_hash', 'sh.ip_allowlist', 'sh.locked_until', 'sh.accepted_at', 'sh.accepted_by',
  'sh.declined_at', 'sh.created_at', 's.path as secret_path'] as const;

/** Shares with their secret's path and deletion. */
function sharesWithSecret(em: EntityManager) {
  return query(em).selectFrom('shares as sh').innerJoin('secrets as s', 's.id', 'sh.secret_id')
    .select((eb) => [...SHARE_COLUMNS, eb('s.deleted_at', 'is not', null).as('secret_deleted')]);
}

export type NewShare = {
  id: string; orgId: string; secretId: string; vaultId: string; linkDigest: string; linkSealed: Buffer; linkPrefix: string;
  createdBy: string; createdByType: PrincipalType; createdIp: string; recipientType: RecipientType;
  recipientPrincipalType: PrincipalType | null; recipientId: string | null; recipientEmail: string | null;
  expiresAt: Date; maxAccessCount: number | null; passphraseHash: string | null; ipAllowlist: string[];
};

export async function insertShare(tx: EntityManager, s: NewShare): Promise<ShareRow> {
  await query(tx).insertInto('shares').values({
    id: s.id, org_id: s.orgId, secret_id: s.secretId, vault_id: s.vaultId, link_digest: s.linkDigest, link_sealed: s.linkSealed,
    link_prefix: s.linkPrefix, created_by: s.createdBy, created_by_type: s.createdByType, created_ip: s.createdIp,
    recipient_type: s.recipientType, recipient_principal_type: s.recipientPrincipalType, recipient_id: s.recipientId,
    recipient_email: s.recipientEmail, expires_at: s.expiresAt, max_access_count: s.maxAccessCount, passphrase_hash: s.passphraseHash,
    ip_allowlist: s.ipAllowlist,
  }).execute();
  return (await findShareById(tx, s.id))!;
}

async function findShareById(em: EntityManager, id: string): Promise<ShareRow | null> {
  return (await sharesWithSecret(em).where('sh.id', '=', id).executeTakeFirst() as ShareRow | undefined) ?? null;
}

/** The live (unrevoked) share whose link has this digest; `forUpdate` locks its row (FOR UPDATE OF sh). */
export async function findShareByDigest(em: EntityManager, digest: string, forUpdate = false): Promise<ShareRow | null> {
  const q = sharesWithSecret(em).where('sh.link_digest', '=', digest).where('sh.revoked_at', 'is', null);
  return (await (forUpdate ? q.forUpdate('sh') : q).executeTakeFirst() as ShareRow | undefined) ?? null;
}

/** Shares this principal created and has not revoked, newest first. */
export async function listOutbound(em: EntityManager, orgId: string, creatorType: PrincipalType, creatorId: string): Promise<ShareRow[]> {
  return await sharesWithSecret(em)
    .where('sh.created_by', '=', creatorId).where('sh.created_by_type', '=', creatorType).where('sh.org_id', '=', orgId).where('sh.revoked_at', 'is', null)
    .orderBy('sh.created_at', 'desc').limit(500).execute() as ShareRow[];
}

/**
 * Shares addressed to this principal, and for a user whose e-mail is verified the external_email
 * shares sent to that address (from any organization): live, not declined, newest first.
 */
export async function listInbound(em: EntityManager, type: PrincipalType, id: string, verifiedEmail: string | null): Promise<ShareRow[]> {
  type Eb = ExpressionBuilder<Database & { sh: Database['shares']; s: Database['secrets'] }, 'sh' | 's'>;
  const addressed = (eb: Eb) => {
    const toPrincipal = eb.and([eb('sh.recipient_id', '=', id), eb('sh.recipient_principal_type', '=', type)]);
    if (verifiedEmail === null) return toPrincipal;
    return eb.or([toPrincipal, eb.and([
      eb('sh.recipient_type', '=', 'external_email'),
      eb(eb.fn('lower', ['sh.recipient_email']), '=', eb.fn('lower', [eb.val(verifiedEmail)])),
    ])]);
  };
  return await sharesWithSecret(em)
    .where('sh.revoked_at', 'is', null).where('sh.declined_at', 'is', null).where('s.deleted_at', 'is', null).where(addressed)
    .orderBy('sh.created_at', 'desc').limit(500).execute() as ShareRow[];
}

export async function markAccepted(tx: EntityManager, shareId: string, userId: string | null): Promise<void> {
  await query(tx).updateTable('shares')
    .set((eb) => ({ accepted_at: sql`coalesce(accepted_at, now())`, accepted_by: eb.fn.coalesce('accepted_by', eb.val(userId)) }))
    .where('id', '=', shareId).execute();
}

export async function markDeclined(tx: EntityManager, shareId: string): Promise<void> {
  await query(tx).updateTable('shares').set({ declined_at: sql`coalesce(declined_at, now())` }).where('id', '=', shareId).execute();
}

export async function markRevoked(tx: EntityManager, shareId: string): Promise<boolean> {
  const rows = await query(tx).updateTable('shares').set({ revoked_at: sql`now()` })
    .where('id', '=', shareId).where('revoked_at', 'is', null).returning('id').execute();
  return rows.length > 0;
}

/**
 * Takes one open if the share is live, unexpired and under its cap: one conditional UPDATE, so
 * parallel opens of a share with one access left serve exactly one. Returns the new count.
 */
export async function takeOpen(tx: EntityManager, shareId: string): Promise<number | null> {
  const row = await query(tx).updateTable('shares')
    .set((eb) => ({ access_count: eb('access_count', '+', 1), failed_passphrase_attempts: 0 }))
    .where('id', '=', shareId).where('revoked_at', 'is', null).where('expires_at', '>', sql<Date>`now()`)
    .where((eb) => eb.or([eb('max_access_count', 'is', null), eb('access_count', '<', eb.ref('max_access_count'))]))
    .returning('access_count').executeTakeFirst();
  return row?.access_count ?? null;
}

/** Gives an open back (its audit record could not be written, so its value was not served). */
export async function giveBackOpen(em: EntityManager, shareId: string, accessId: string): Promise<void> {
  await em.transactional(async (tx) => {
    const q = query(tx);
    await q.deleteFrom('share_accesses').where('id', '=', accessId).execute();
    await q.updateTable('shares').set((eb) => ({ access_count: eb('access_count', '-', 1) }))
      .where('id', '=', shareId).where('access_count', '>', 0).execute();
  });
}

export async function insertAccess(tx: EntityManager, shareId: string, orgId: string, clientIp: string): Promise<string> {
  const id = randomUUID();
  await query(tx).insertInto('share_accesses').values({ id, share_id: shareId, org_id: orgId, client_ip: clientIp }).execute();
  return id;
}

/**
 * Counts a wrong passphrase; the `limit`-th in a row locks the share for `lockSeconds` and starts
 * the count again. Returns the lock's end when this failure set one.
 */
export async function failPassphrase(em: EntityManager, shareId: string, limit: number, lockSeconds: number): Promise<Date | null> {
  const row = await query(em).updateTable('shares')
    .set((eb) => {
      const locks = eb(eb('failed_passphrase_attempts', '+', 1), '>=', limit);
      return {
        failed_passphrase_attempts: eb.case().when(locks).then(0).else(eb('failed_passphrase_attempts', '+', 1)).end(),
        locked_until: eb.case().when(locks).then(sql<Date>`now() + make_interval(secs => ${lockSeconds})`).else(eb.ref('locked_until')).end(),
      };
    })
    .where('id', '=', shareId)
    .returning((eb) => eb.case().when('locked_until', '>', sql<Date>`now()`).then(eb.ref('locked_until')).end().as('locked_until'))
    .executeTakeFirst();
  return row?.locked_until ?? null;
}

/** The live secret with this id in the organization: where it lives and its type now. */
export async function findSecretForShare(em: EntityManager, orgId: string, secretId: string): Promise<{ vault_id: string; path: string } | null> {
  return (await query(em).selectFrom('secrets as s').innerJoin('vaults as v', 'v.id', 's.vault_id').select(['s.vault_id', 's.path'])
    .where('s.id', '=', secretId).where('s.org_id', '=', orgId).where('s.deleted_at', 'is', null)
    .where('v.deleted_at', 'is', null).where('v.kind', '=', 'standard').executeTakeFirst()) ?? null;
}

/** An active agent of the organization and the human who created it. */
export async function findActiveAgent(em: EntityManager, orgId: string, agentId: string): Promise<{ id: string; created_by: string | null } | null> {
  return (await query(em).selectFrom('agents').select(['id', 'created_by'])
    .where('id', '=', agentId).where('org_id', '=', orgId).where('status', '=', 'active').executeTakeFirst()) ?? null;
}

/** The caller's e-mail when it is verified (who may see external_email shares sent to it). */
export async function verifiedEmailOf(em: EntityManager, userId: string): Promise<string | null> {
  const row = await query(em).selectFrom('users').select('email')
    .where('id', '=', userId).where('status', '=', 'active').where('email_verified', '=', true).executeTakeFirst();
  return row?.email ?? null;
}
