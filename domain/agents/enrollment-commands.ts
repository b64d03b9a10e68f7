// Agent self-enrollment (§4.5): an agent asks to join; a human of an organization approves it
// there, and only then is a key issued (to that human, once). With `human_email` the human gets
// an approval mail and only they may approve; otherwise the agent receives an approval URL to
// hand to its human. Requests are rate limited per client address (a limiter the composition
// root builds, see ENROLL_PER_IP) and the number of open link-only requests is capped.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyObject } from 'node:crypto';
import type { HotReads } from '../../db/hot-reads.ts';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Limiter, LimitSpec } from '../ratelimit/limiter.ts';
import { callerOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { loadProfile } from '../accounts/profile.ts';
import { assertBelowTierLimit } from '../limits/tier-limits.ts';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import { Problem, forbidden, gone, notFound } from '../errors.ts';
import { newAgentKey } from './agent-keys.ts';
import { DEFAULT_SETTINGS, insertAgent } from './agent-repository.ts';
import { decideEnrollment, findEnrollment, insertEnrollment, lockAndCountOpenLinkOnly, type EnrollmentRow } from './enrollment-repository.ts';
import type { AgentWithKey } from './agent-commands.ts';

/**
 * Five requests per client address per hour, across all api processes. A public route that sends
 * mail to any address: with the limits' store down it refuses (503) rather than count per process.
 */
export const ENROLL_PER_IP: LimitSpec = { name: 'enroll-ip', ratePerSecond: 5 / 3600, burst: 5, whenStoreDown: 'closed' };
const ENROLL_TTL_HOURS = 24;
const MAX_OPEN_LINK_ONLY = 100;

export type EnrollmentRequested = { humanEmailed: boolean; approvalUrl: string | null; expiresInSeconds: number };

export type EnrollmentDeps = {
  db: () => EntityManager; hot: HotReads; pepper: KeyObject; mailer: Mailer; audit: ActionAudit;
  /** The per-address limiter of enrollment requests (ENROLL_PER_IP). */
  perIp: Limiter;
  /** Where the service is reached from outside, for the links it hands out. */
  publicUrl: string;
};

export class EnrollmentCommands {
  private readonly d: EnrollmentDeps;

  constructor(deps: EnrollmentDeps) {
    this.d = deps;
  }

  /** Public: records a pending request; nothing usable exists until a human approves it. */
  async request(ctx: ActionContext, input: { name: string; description: string; human_email?: string }): Promise<EnrollmentRequested> {
    const wait = await this.d.perIp.take(ctx.clientIp);
    if (wait > 0) throw new Problem(429, 'Too many enrollment requests from this address; retry later', { headers: { 'Retry-After': String(wait) } });
    const token = newOpaqueToken('enr_');
    const humanEmail = input.human_email ?? null;
    const link = `${this.d.publicUrl}/v1/agent-enrollments/${token}`;
    await this.d.mailer.transaction(this.d.db(), async (tx, send) => {
      if (!humanEmail && await lockAndCountOpenLinkOnly(tx) >= MAX_OPEN_LINK_ONLY) {
        throw new Problem(429, 'Too many open enrollment requests; retry later', { headers: { 'Retry-After': '3600' } });
      }
      await insertEnrollment(tx, {
        name: input.name, description: input.description, humanEmail, tokenDigest: digestToken(this.d.pepper, token), clientIp: ctx.clientIp, ttlHours: ENROLL_TTL_HOURS,
      });
      if (humanEmail) {
        await send({
          to: humanEmail,
          subject: `Agent "${input.name}" asks to be enrolled`,
          text: `An agent named "${input.name}" asked to be enrolled in your vault organization.\n\n` +
            `Review: GET ${link}\n` +
            `Approve (signed in as an owner or admin): POST ${link}/approve\n` +
            `Deny: POST ${link}/deny\n\n` +
            `The request expires in ${ENROLL_TTL_HOURS} hours. If you do not know this agent, deny it or ignore this message.`,
        });
      }
    });
    // With a named human the link goes only to their mailbox: the agent must not approve itself.
    return { humanEmailed: humanEmail !== null, approvalUrl: humanEmail ? null : link, expiresInSeconds: ENROLL_TTL_HOURS * 3600 };
  }

  /** Public: what a human is asked to approve. */
  preview(_ctx: ActionContext, token: string): Promise<EnrollmentRow> {
    return this.openRequest(this.d.db(), token, false);
  }

  /** Creates the agent in the approver's organization; the approver sees its key this once. */
  async approve(ctx: ActionContext, token: string): Promise<AgentWithKey> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, principal);
    const key = newAgentKey(this.d.pepper);
    const me = await loadProfile(this.d.hot, principal.id);
    const agent = await em.transactional(async (tx) => {
      const e = await this.requestFor(tx, token, me.email);
      await assertBelowTierLimit(tx, principal.orgId, 'agents');
      const a = await insertAgent(tx, principal.orgId, principal.id, { name: e.name, description: e.description, ...DEFAULT_SETTINGS }, key, e.human_email);
      await decideEnrollment(tx, e.id, 'approved', principal.id, a.id);
      return a;
    });
    await this.d.audit.record(ctx, 'agent.register', { resourceType: 'agent', resourceId: agent.id, details: { via: 'enrollment' } });
    return { agent, apiKey: key.apiKey };
  }

  async deny(ctx: ActionContext, token: string): Promise<void> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, principal);
    const me = await loadProfile(this.d.hot, principal.id);
    const id = await em.transactional(async (tx) => {
      const e = await this.requestFor(tx, token, me.email);
      await decideEnrollment(tx, e.id, 'denied', principal.id);
      return e.id;
    });
    await this.d.audit.record(ctx, 'agent.enrollment_denied', { resourceType: 'agent_enrollment', resourceId: id });
  }

  /**
   * The open request locked for a decision by the human with `email`: approve and deny decide
   * alike, so a request that names its approver is theirs alone to decide (403 for anyone else).
   */
  private async requestFor(tx: EntityManager, token: string, email: string): Promise<EnrollmentRow> {
    const e = await this.openRequest(tx, token, true);
    if (e.human_email && e.human_email.toLowerCase() !== email.toLowerCase()) throw forbidden('This enrollment request names another person as its approver');
    return e;
  }

  /** A request still waiting for a decision: unknown 404, decided 409, expired 410. */
  private async openRequest(em: EntityManager, token: string, forUpdate: boolean): Promise<EnrollmentRow> {
    const e = await findEnrollment(em, digestToken(this.d.pepper, token), forUpdate);
    if (!e) throw notFound('Enrollment request');
    if (e.status !== 'pending') throw new Problem(409, `This enrollment request was already ${e.status}`);
    if (new Date(e.expires_at).getTime() <= Date.now()) throw gone('This enrollment request has expired; the agent must enroll again');
    return e;
  }
}
