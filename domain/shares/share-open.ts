// Opening a share (GET /v1/share/{id}, POST /v1/shares/{id}/access): a public route, so every
// check is here (§5.9). In order: rate limits (per address, per share) before any database work;
// the share (unknown or revoked 404, expired or used up 410); the recipient (a user or agent share
// needs that principal's bearer and an accepted share); the IP allowlist; the passphrase (argon2id,
// five wrong in a row lock the share for 15 minutes); then the creator must still be able to read
// the secret as when they shared it (their standing and policies, evaluated with the address they
// shared from). The value is the secret's latest version.
//
// The open is counted in one conditional UPDATE with the secret's own read cap, the access row
// (for the creator's mail) and the `share.accessed` event, in one transaction; its audit record
// follows and fails closed: without it the open is given back and no value leaves.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Limiter, LimitSpec } from '../ratelimit/limiter.ts';
import type { SecretLookup, Lookup } from '../secrets/secret-lookup.ts';
import type { Principal } from '../auth/principal.ts';
import type { SharesClient } from './client.ts';
import { decideSecretAction } from '../secrets/secret-access.ts';
import { countCappedRead } from '../secrets/secret-repository.ts';
import { decryptForAnswer } from '../secrets/secret-decrypt.ts';
import { verifyPassword } from '../crypto/passwords.ts';
import { cidrContains, parseCidr } from '../net/ip.ts';
import { emitEvent } from '../events/outbox.ts';
import { Problem, forbidden, gone, notFound } from '../errors.ts';
import { linkDigest } from './share-links.ts';
import { failPassphrase, findShareByDigest, giveBackOpen, insertAccess, takeOpen, type ShareRow } from './share-repository.ts';
import { shareEventData } from './share-events.ts';

/**
 * Opens per client address and per share, across all api processes; refused opens count too. A
 * public route guarding secret values: with the limits' store down it refuses (503) rather than
 * let each process count on its own.
 */
export const SHARE_OPEN_PER_IP: LimitSpec = { name: 'share-open-ip', ratePerSecond: 5, burst: 60, whenStoreDown: 'closed' };
export const SHARE_OPEN_PER_SHARE: LimitSpec = { name: 'share-open-share', ratePerSecond: 1, burst: 60, whenStoreDown: 'closed' };
export const PASSPHRASE_FAILURES_BEFORE_LOCK = 5;
export const PASSPHRASE_LOCK_SECONDS = 15 * 60;

export type SharedSecret = { secretId: string; path: string; type: string; value: string; accessCount: number; maxAccessCount: number | null };

/** What the opener presented besides the link: a passphrase, and a verified bearer if one was sent. */
export type ShareCredentials = { passphrase?: string; bearer: Principal | null };

export type ShareOpenDeps = {
  db: () => EntityManager; lookup: SecretLookup; kms: Kms; audit: ActionAudit; pepper: KeyObject;
  perIp: Limiter; perShare: Limiter;
  /** Starts the creator's access mail (batched over `mailWindowSeconds`). */
  notices: Pick<SharesClient, 'startAccessDigest'>; mailWindowSeconds: number;
};

const UNKNOWN = () => notFound('Share');
const tooFast = (what: string, wait: number) =>
  new Problem(429, `Too many opens ${what}; retry later`, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(wait))) } });

export class ShareOpener {
  private readonly d: ShareOpenDeps;

  constructor(deps: ShareOpenDeps) {
    this.d = deps;
  }

  async open(ctx: ActionContext, linkId: string, presented: ShareCredentials): Promise<SharedSecret> {
    const ipWait = await this.d.perIp.take(ctx.clientIp);
    if (ipWait > 0) throw tooFast('from this address', ipWait);
    const digest = linkDigest(this.d.pepper, linkId);
    if (!digest) throw UNKNOWN();
    const shareWait = await this.d.perShare.take(digest);
    if (shareWait > 0) throw tooFast('of this share', shareWait);
    const em = this.d.db();
    const share = await findShareByDigest(em, digest);
    if (!share || share.secret_deleted || share.declined_at) throw UNKNOWN();
    let row: Lookup['row'];
    try {
      this.checkRecipient(share, presented.bearer); // first: a stranger learns nothing of an addressed share's state
      this.checkLive(share);
      this.checkAddress(share, ctx.clientIp);
      await this.checkPassphrase(em, share, presented.passphrase);
      row = (await this.creatorCanStillRead(share)).row;
    } catch (e) {
      if (e instanceof Problem) await this.recordRefusal(ctx, share, presented.bearer, e);
      throw e;
    }
    const value = await this.decrypt(row, share.secret_path);
    const opened = await em.transactional(async (tx) => {
      const count = await takeOpen(tx, share.id);
      if (count === null) throw usedUpOrExpired(share);
      if (row.max_access_count !== null && !(await countCappedRead(tx, share.secret_id))) {
        throw gone('The shared secret has reached its maximum number of reads');
      }
      const accessId = await insertAccess(tx, share.id, share.org_id, ctx.clientIp);
      await emitEvent(tx, share.org_id, 'share.accessed', { ...shareEventData(share), access_count: count });
      return { count, accessId };
    });
    try {
      await this.d.audit.record(ctx, 'share.access', {
        actor: presented.bearer, orgId: share.org_id, resourceType: 'share', resourceId: share.id,
        details: { ...shareEventData(share), path: share.secret_path, version: row.version, access_count: opened.count },
      });
    } catch {
      await giveBackOpen(em, share.id, opened.accessId).catch(() => {});
      throw new Problem(503, 'The open could not be recorded in the audit log, so the value was not returned and the open was not counted; retry shortly');
    }
    await this.d.notices.startAccessDigest(share.id, this.d.mailWindowSeconds);
    return {
      secretId: share.secret_id, path: share.secret_path, type: row.type!, value: value.toString('utf8'),
      accessCount: opened.count, maxAccessCount: share.max_access_count,
    };
  }

  /** A refused open of a known share goes to its organization's audit log (best effort: the refusal stands). */
  private async recordRefusal(ctx: ActionContext, s: ShareRow, bearer: Principal | null, refusal: Problem): Promise<void> {
    await this.d.audit.record(ctx, 'share.access_denied', {
      actor: bearer, orgId: s.org_id, resourceType: 'share', resourceId: s.id,
      details: { ...shareEventData(s), status: refusal.status, reason: refusal.detail },
    }).catch(() => {});
  }

  private checkLive(s: ShareRow): void {
    if (s.expires_at.getTime() <= Date.now()) throw gone('This share has expired');
    if (s.max_access_count !== null && s.access_count >= s.max_access_count) throw usedUpOrExpired(s);
  }

  /** A share addressed to a user or agent opens only for them, with their bearer, once accepted. */
  private checkRecipient(s: ShareRow, bearer: Principal | null): void {
    if (s.recipient_principal_type === null) return; // link and e-mail shares: the link is the credential
    if (!bearer) {
      throw new Problem(401, `This share is addressed to a${s.recipient_principal_type === 'agent' ? 'n agent' : ' user'}; open it with their bearer token`,
        { headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    if (bearer.type !== s.recipient_principal_type || bearer.id !== s.recipient_id) throw forbidden('This share is addressed to someone else');
    if (!s.accepted_at) throw forbidden('Accept this share first: POST /v1/shares/{share_id}/accept');
  }

  private checkAddress(s: ShareRow, clientIp: string): void {
    if (s.ip_allowlist.length === 0) return;
    const inside = s.ip_allowlist.some((c) => {
      const cidr = parseCidr(c);
      return cidr !== null && cidrContains(cidr, clientIp);
    });
    if (!inside) throw forbidden("Your address is not in this share's IP allowlist");
  }

  private async checkPassphrase(em: EntityManager, s: ShareRow, passphrase: string | undefined): Promise<void> {
    if (!s.passphrase_hash) return;
    if (s.locked_until && s.locked_until.getTime() > Date.now()) throw locked(s.locked_until);
    if (!passphrase) {
      throw forbidden('This share requires a passphrase: send it in the X-Share-Passphrase header, or POST it to /v1/shares/{share_id}/access');
    }
    if (await verifyPassword(s.passphrase_hash, passphrase)) return;
    const lockedUntil = await failPassphrase(em, s.id, PASSPHRASE_FAILURES_BEFORE_LOCK, PASSPHRASE_LOCK_SECONDS);
    throw lockedUntil ? locked(lockedUntil) : forbidden('Wrong passphrase for this share');
  }

  /**
   * The creator must still be able to read the secret: removed from the organization, deactivated,
   * or no longer granted read, their shares stop opening (410). Their policy conditions are
   * evaluated with the address they shared from, not the opener's.
   */
  private async creatorCanStillRead(s: ShareRow): Promise<Lookup> {
    const creator: Principal = { type: s.created_by_type, id: s.created_by, orgId: s.org_id, via: 'jwt' };
    const noLonger = () => gone("This share no longer opens: its creator can no longer read the shared secret");
    let found: Lookup;
    try {
      found = await this.d.lookup.load(creator, s.vault_id, s.secret_path, null);
    } catch (e) {
      if (e instanceof Problem) throw e.status === 404 ? UNKNOWN() : noLonger();
      throw e;
    }
    const { row, facts } = found;
    if (!row.secret_id || row.secret_id !== s.secret_id || row.version === null) throw UNKNOWN();
    if (!decideSecretAction(creator, s.created_ip, facts, s.secret_path, 'read', row.type).allowed) throw noLonger();
    if (row.disabled) throw gone('The latest version of the shared secret is disabled');
    if (row.expired) throw gone('The shared secret has expired');
    return found;
  }

  private decrypt(row: Lookup['row'], path: string): Promise<Buffer> {
    return decryptForAnswer(this.d.kms, { ciphertext: row.ciphertext!, wrappedKey: row.wrapped_key!, keyRef: row.key_ref! },
      { orgId: row.org_id, vaultId: row.vault_id, path, version: row.version! });
  }
}

function usedUpOrExpired(s: ShareRow): Problem {
  return s.expires_at.getTime() <= Date.now() ? gone('This share has expired') : gone('This share has been opened the maximum number of times');
}

function locked(until: Date): Problem {
  const wait = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
  return new Problem(429, `This share is locked after repeated wrong passphrases; try again in ${wait} seconds`, { headers: { 'Retry-After': String(wait) } });
}
