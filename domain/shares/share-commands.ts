// Sharing a secret (spec §2.7, §4.6): create, the creator's and the recipient's lists, accept,
// decline, revoke. Opening a share is share-open.ts. A share is created only by someone who may
// read the secret now; a user or agent recipient must belong to the creator's organization; an
// agent may share only with its own human (`creator`). The link id is returned to the creator and
// mailed to an external address; Postgres keeps only its digest and a sealed copy (share-links.ts).
import { randomUUID, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Limiter, LimitSpec } from '../ratelimit/limiter.ts';
import type { SecretLookup } from '../secrets/secret-lookup.ts';
import { callerOf, creatorType, type Principal } from '../auth/principal.ts';
import { authorizeSecretAction } from '../secrets/secret-access.ts';
import { hashPassword } from '../crypto/passwords.ts';
import { emitEvent } from '../events/outbox.ts';
import { Problem, badRequest, forbidden, gone, invalidField, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { linkDigest, linkPrefix, newLinkId, openLinkId, sealLinkId, shareUrl } from './share-links.ts';
import {
  findActiveAgent, findSecretForShare, findShareByDigest, insertShare, listInbound, listOutbound,
  markAccepted, markDeclined, markRevoked, verifiedEmailOf, type RecipientType, type ShareRow,
} from './share-repository.ts';
import { shareEventData } from './share-events.ts';
import { findMember } from '../org/member-repository.ts';

/**
 * The reference's limit on share creation: 10 a minute per organization, across all api processes.
 * Its callers are authenticated members: with the limits' store down it counts per process instead.
 */
export const SHARE_CREATE_PER_ORG: LimitSpec = { name: 'share-create-org', ratePerSecond: 10 / 60, burst: 10, whenStoreDown: 'open' };
/** The longest a share may live. */
export const SHARE_MAX_LIFETIME_DAYS = 30;
export const SHARE_MAX_ACCESS_COUNT = 10_000;

export type CreateShareInput = {
  recipientType: RecipientType; recipientId?: string; email?: string; expiresAt: Date;
  maxAccessCount?: number | null; passphrase?: string; ipAllowlist?: string[];
};

/** A share as its creator and its recipient see it. */
export type ShareView = {
  linkId: string; shareUrl: string; secretPath: string; recipientType: RecipientType; recipientEmail: string | null;
  expiresAt: Date; maxAccessCount: number | null; accessCount: number; createdAt: Date; isAccepted: boolean;
};

export type ShareDeps = {
  db: () => EntityManager; lookup: SecretLookup; audit: ActionAudit; mailer: Mailer; pepper: KeyObject; linkKey: KeyObject;
  publicUrl: string;
  /** Creation limiter keyed by organization (SHARE_CREATE_PER_ORG). */
  perOrg: Limiter;
};

type Recipient = { principalType: 'user' | 'agent' | null; id: string | null; email: string | null };

export class ShareCommands {
  private readonly d: ShareDeps;

  constructor(deps: ShareDeps) {
    this.d = deps;
  }

  async create(ctx: ActionContext, secretId: string, input: CreateShareInput): Promise<ShareView> {
    const principal = callerOf(ctx);
    if (principal.type === 'agent' && input.recipientType !== 'creator') {
      throw forbidden(input.recipientType === 'external_email'
        ? 'Agents cannot share with external e-mail addresses; ask your human to share it, or share with recipient_type creator'
        : `Agents may share only with their own human (recipient_type creator), not with recipient_type ${input.recipientType}`);
    }
    if (principal.type === 'user' && input.recipientType === 'creator') {
      throw invalidField('recipient_type', "creator means an agent's own human; as a person, share with recipient_type user");
    }
    const maxLifetime = Date.now() + SHARE_MAX_LIFETIME_DAYS * 86_400_000;
    if (input.expiresAt.getTime() > maxLifetime) throw invalidField('expires_at', `must be at most ${SHARE_MAX_LIFETIME_DAYS} days from now`);
    const em = this.d.db();
    const secret = isUuid(secretId) ? await findSecretForShare(em, principal.orgId, secretId) : null;
    if (!secret) throw notFound('Secret');
    // The same decision as a read of the secret now (policies, conditions, scopes, Intents restriction).
    const { row, facts } = await this.d.lookup.load(principal, secret.vault_id, secret.path, null);
    authorizeSecretAction(principal, ctx.clientIp, facts, secret.path, 'read', row.type);
    if (!row.secret_id) throw notFound('Secret');
    const recipient = await this.recipient(em, principal, input);
    // Counted once the request is valid: a refused attempt does not use up the minute's budget.
    const wait = await this.d.perOrg.take(principal.orgId);
    if (wait > 0) {
      throw new Problem(429, 'Your organization creates shares too fast (10 a minute); retry shortly', { headers: { 'Retry-After': String(Math.ceil(wait)) } });
    }
    const passphraseHash = input.passphrase ? await hashPassword(input.passphrase) : null;
    const id = randomUUID();
    const linkId = newLinkId();
    const url = shareUrl(this.d.publicUrl, linkId);
    const share = await this.d.mailer.transaction(em, async (tx, send) => {
      const s = await insertShare(tx, {
        id, orgId: principal.orgId, secretId: row.secret_id!, vaultId: secret.vault_id, linkDigest: linkDigest(this.d.pepper, linkId)!,
        linkSealed: sealLinkId(this.d.linkKey, id, linkId), linkPrefix: linkPrefix(linkId), createdBy: principal.id,
        createdByType: creatorType(principal), createdIp: ctx.clientIp, recipientType: input.recipientType,
        recipientPrincipalType: recipient.principalType, recipientId: recipient.id, recipientEmail: recipient.email,
        expiresAt: input.expiresAt, maxAccessCount: input.maxAccessCount ?? null, passphraseHash, ipAllowlist: input.ipAllowlist ?? [],
      });
      await emitEvent(tx, principal.orgId, 'share.created', shareEventData(s));
      if (input.recipientType === 'external_email') await send(invitationMail(recipient.email!, url, s));
      return s;
    });
    await this.d.audit.record(ctx, 'share.create', {
      resourceType: 'share', resourceId: id,
      details: {
        ...shareEventData(share), passphrase: passphraseHash !== null, ip_allowlist: share.ip_allowlist,
        expires_at: share.expires_at, max_access_count: share.max_access_count,
      },
    });
    return this.view(share, linkId);
  }

  async outbound(ctx: ActionContext): Promise<ShareView[]> {
    const p = callerOf(ctx);
    return (await listOutbound(this.d.db(), p.orgId, creatorType(p), p.id)).map((s) => this.view(s));
  }

  async inbound(ctx: ActionContext): Promise<ShareView[]> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const email = p.type === 'user' ? await verifiedEmailOf(em, p.id) : null;
    return (await listInbound(em, creatorType(p), p.id, email)).map((s) => this.view(s));
  }

  /** The recipient takes the share: user and agent shares open only once accepted. */
  async accept(ctx: ActionContext, linkId: string): Promise<void> {
    const p = callerOf(ctx);
    await this.asRecipient(ctx, linkId, 'share.accept', async (tx, s) => {
      if (s.declined_at) throw new Problem(409, 'You declined this share; ask its creator to share again');
      if (s.expires_at.getTime() <= Date.now()) throw gone('This share has expired');
      await markAccepted(tx, s.id, p.type === 'user' ? p.id : null);
    });
  }

  /** The recipient refuses the share: it leaves their inbound list and no longer opens. */
  async decline(ctx: ActionContext, linkId: string): Promise<void> {
    await this.asRecipient(ctx, linkId, 'share.decline', (tx, s) => markDeclined(tx, s.id));
  }

  /** The creator ends the share at once; opening it then answers 404. */
  async revoke(ctx: ActionContext, linkId: string): Promise<void> {
    const p = callerOf(ctx);
    const digest = linkDigest(this.d.pepper, linkId);
    if (!digest) throw notFound('Share');
    const share = await this.d.db().transactional(async (tx) => {
      const s = await findShareByDigest(tx, digest, true);
      if (!s) throw notFound('Share');
      if (s.created_by !== p.id || s.created_by_type !== p.type) throw forbidden('Only the creator of a share can revoke it');
      if (await markRevoked(tx, s.id)) await emitEvent(tx, s.org_id, 'share.revoked', shareEventData(s));
      return s;
    });
    await this.d.audit.record(ctx, 'share.revoke', { resourceType: 'share', resourceId: share.id, details: shareEventData(share) });
  }

  /** Runs `change` on a share addressed to the caller (by principal, or by their verified e-mail). */
  private async asRecipient(ctx: ActionContext, linkId: string, action: string, change: (tx: EntityManager, s: ShareRow) => Promise<void>): Promise<void> {
    const p = callerOf(ctx);
    const digest = linkDigest(this.d.pepper, linkId);
    if (!digest) throw notFound('Share');
    const share = await this.d.db().transactional(async (tx) => {
      const s = await findShareByDigest(tx, digest, true);
      if (!s || s.secret_deleted) throw notFound('Share');
      if (s.recipient_type === 'anyone_with_link') throw badRequest('A link share is not addressed to anyone: it needs no accepting or declining');
      if (!await this.addressedTo(tx, s, p)) throw forbidden('This share is addressed to someone else');
      await change(tx, s);
      return s;
    });
    await this.d.audit.record(ctx, action, { resourceType: 'share', resourceId: share.id, details: shareEventData(share), orgId: p.orgId });
  }

  private async addressedTo(em: EntityManager, s: ShareRow, p: Principal): Promise<boolean> {
    if (s.recipient_principal_type !== null) return s.recipient_principal_type === p.type && s.recipient_id === p.id;
    if (s.recipient_type !== 'external_email' || p.type !== 'user') return false;
    const email = await verifiedEmailOf(em, p.id);
    return email !== null && email.toLowerCase() === s.recipient_email?.toLowerCase();
  }

  /** Resolves and checks the recipient: the same organization for people and agents, no enumeration. */
  private async recipient(em: EntityManager, principal: Principal, input: CreateShareInput): Promise<Recipient> {
    const elsewhere = 'The recipient must be an active member or agent of your organization';
    switch (input.recipientType) {
      case 'creator': {
        const agent = await findActiveAgent(em, principal.orgId, principal.id);
        const human = agent?.created_by ? await findMember(em, principal.orgId, agent.created_by) : null;
        if (!human) throw forbidden("This agent's human is no longer a member of its organization");
        // The agent is not shown its human's address.
        return { principalType: 'user', id: human.id, email: null };
      }
      case 'user': {
        if (!input.recipientId) throw invalidField('recipient_id', 'is required for recipient_type user');
        const member = await findMember(em, principal.orgId, input.recipientId);
        if (!member) throw forbidden(elsewhere);
        return { principalType: 'user', id: member.id, email: member.email };
      }
      case 'agent': {
        if (!input.recipientId) throw invalidField('recipient_id', 'is required for recipient_type agent');
        const agent = isUuid(input.recipientId) ? await findActiveAgent(em, principal.orgId, input.recipientId) : null;
        if (!agent) throw forbidden(elsewhere);
        return { principalType: 'agent', id: agent.id, email: null };
      }
      case 'external_email':
        if (!input.email) throw invalidField('email', 'is required for recipient_type external_email');
        return { principalType: null, id: null, email: input.email };
      case 'anyone_with_link':
        if (input.email || input.recipientId) throw badRequest('recipient_type anyone_with_link takes neither email nor recipient_id');
        return { principalType: null, id: null, email: null };
    }
  }

  private view(s: ShareRow, linkId = openLinkId(this.d.linkKey, s.id, s.link_sealed)): ShareView {
    return {
      linkId, shareUrl: shareUrl(this.d.publicUrl, linkId), secretPath: s.secret_path, recipientType: s.recipient_type,
      recipientEmail: s.recipient_email, expiresAt: s.expires_at, maxAccessCount: s.max_access_count, accessCount: s.access_count,
      createdAt: s.created_at, isAccepted: s.accepted_at !== null,
    };
  }
}

function invitationMail(to: string, url: string, s: ShareRow) {
  const limits = [`It expires at ${s.expires_at.toISOString()}`];
  if (s.max_access_count !== null) limits.push(`and opens at most ${s.max_access_count} time${s.max_access_count === 1 ? '' : 's'}`);
  return {
    to,
    subject: 'A secret was shared with you',
    text: `A secret was shared with you through the vault.\n\nOpen it: GET ${url}\n\n${limits.join(' ')}.\n` +
      (s.passphrase_hash ? 'It is protected by a passphrase: the sender will give it to you separately (send it in the X-Share-Passphrase header).\n' : '') +
      '\nIf you sign in to the vault with this address (verified), the share also appears in your inbound shares.\n' +
      'If you did not expect this, ignore this message.',
  };
}
