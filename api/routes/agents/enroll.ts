// Agent self-enrollment (§4.5): an agent asks to join; a human of an organization approves it
// there, and only then are credentials issued (to that human, once). With `human_email` the
// human gets an approval mail and only they may approve; otherwise the response carries an
// approval URL for the agent to hand to its human. Rate limited per client IP, and the number
// of open link-only requests is capped.
import { z } from 'zod';
import { randomUUID, type KeyObject } from 'node:crypto';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { TokenBuckets } from '../../../domain/ratelimit/token-bucket.ts';
import { digestToken, newOpaqueToken } from '../../../domain/crypto/opaque-tokens.ts';
import { enqueueMail } from '../../../domain/mail/outbox.ts';
import { emailField } from '../../../domain/accounts/schemas.ts';
import { assertBelowTierLimit } from '../../../domain/limits/tier-limits.ts';
import { insertAgent, newAgentKey, presentAgent } from '../../../domain/agents/agent-store.ts';
import { requireManager } from '../../../domain/org/roles.ts';
import { loadProfile } from '../../../domain/accounts/profile.ts';
import { Problem, forbidden, gone, notFound } from '../../../domain/errors.ts';
import { iso } from '../../../domain/time.ts';
import type { EntityManager } from '@mikro-orm/postgresql';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const ENROLL_TTL_HOURS = 24;
const MAX_OPEN_LINK_ONLY = 100;
// Five requests per address per hour, in memory per replica.
const perIp = new TokenBuckets(5 / 3600, 5);

type EnrollmentRow = { id: string; name: string; description: string; human_email: string | null; status: string; expires_at: string; created_at: string };

async function openEnrollment(em: EntityManager, pepper: KeyObject, token: string, forUpdate: boolean): Promise<EnrollmentRow> {
  const rows = await em.execute<EnrollmentRow[]>(
    `SELECT id, name, description, human_email, status, expires_at, created_at FROM agent_enrollments WHERE token_digest = ?${forUpdate ? ' FOR UPDATE' : ''}`,
    [digestToken(pepper, token)]);
  const e = rows[0];
  if (!e) throw notFound('Enrollment request');
  if (e.status !== 'pending') throw new Problem(409, `This enrollment request was already ${e.status}`);
  if (new Date(e.expires_at).getTime() <= Date.now()) throw gone('This enrollment request has expired; the agent must enroll again');
  return e;
}

const tokenParams = z.object({ token: z.string().min(10).max(128) });

export const enrollRoutes = [
  route({
    method: 'POST', path: '/v1/agents/enroll', tag: 'Agents', auth: 'public',
    summary: 'Agent self-enrollment: creates a pending request a human must approve',
    body: z.object({ name: z.string().trim().min(1).max(255), description: z.string().max(2000).optional().default(''), human_email: emailField.optional() }),
    success: { status: 201, description: '{agent_id (nil until approved), message, approval_url?}' }, errors: { 400: 'Invalid input', 429: 'Too many enrollment requests' },
    async handler({ ctx, body, services: s }) {
      const wait = perIp.take(ctx.state.clientIp);
      if (wait > 0) throw new Problem(429, 'Too many enrollment requests from this address; retry later', { headers: { 'Retry-After': String(wait) } });
      const token = newOpaqueToken('enr_');
      const em = s.em();
      const mailId = await em.transactional(async (tx) => {
        if (!body.human_email) {
          await tx.execute('SELECT pg_advisory_xact_lock(727003)');
          const open = await tx.execute<{ n: number }[]>("SELECT count(*)::int AS n FROM agent_enrollments WHERE status = 'pending' AND human_email IS NULL AND expires_at > now()");
          if (open[0]!.n >= MAX_OPEN_LINK_ONLY) throw new Problem(429, 'Too many open enrollment requests; retry later', { headers: { 'Retry-After': '3600' } });
        }
        await tx.execute(
          'INSERT INTO agent_enrollments (id, name, description, human_email, token_digest, client_ip, expires_at) VALUES (?, ?, ?, ?, ?, ?, now() + make_interval(hours => ?))',
          [randomUUID(), body.name, body.description, body.human_email ?? null, digestToken(s.pepper, token), ctx.state.clientIp, ENROLL_TTL_HOURS]);
        if (!body.human_email) return null;
        return enqueueMail(tx, {
          to: body.human_email,
          subject: `Agent "${body.name}" asks to be enrolled`,
          text: `An agent named "${body.name}" asked to be enrolled in your vault organization.\n\n` +
            `Review: GET ${s.config.publicUrl}/v1/agents/enroll/${token}\n` +
            `Approve (signed in as an owner or admin): POST ${s.config.publicUrl}/v1/agents/enroll/${token}/approve\n` +
            `Deny: POST ${s.config.publicUrl}/v1/agents/enroll/${token}/deny\n\n` +
            `The request expires in ${ENROLL_TTL_HOURS} hours. If you do not know this agent, deny it or ignore this message.`,
        });
      });
      if (mailId) await s.workflows.deliverMail(mailId);
      json(ctx, 201, {
        agent_id: NIL_UUID,
        message: body.human_email
          ? 'Enrollment requested: the human was e-mailed; credentials are issued once they approve'
          : 'Enrollment requested: hand the approval_url to a human of the organization; credentials are issued once they approve',
        ...(body.human_email ? {} : { approval_url: `${s.config.publicUrl}/v1/agents/enroll/${token}` }),
        expires_in: ENROLL_TTL_HOURS * 3600,
      });
    },
  }),
  route({
    method: 'GET', path: '/v1/agents/enroll/:token', tag: 'Agents', auth: 'public',
    summary: 'Preview an enrollment request', params: tokenParams,
    success: { status: 200, description: 'Request' }, errors: { 404: 'Unknown', 409: 'Already decided', 410: 'Expired' },
    async handler({ ctx, params, services: s }) {
      const e = await openEnrollment(s.em(), s.pepper, params.token, false);
      json(ctx, 200, { name: e.name, description: e.description, status: e.status, human_email_required: e.human_email !== null, created_at: iso(e.created_at), expires_at: iso(e.expires_at) });
    },
  }),
  route({
    method: 'POST', path: '/v1/agents/enroll/:token/approve', tag: 'Agents', auth: 'user',
    summary: "Approve an enrollment into the caller's organization; returns the agent's key once", params: tokenParams,
    success: { status: 201, description: '{agent_id, api_key, agent}' }, errors: { 403: 'Not an owner/admin, not the named human, or resource_limit_exceeded', 404: 'Unknown', 409: 'Already decided', 410: 'Expired' },
    async handler({ ctx, params, principal, services: s }) {
      const em = s.em();
      await requireManager(em, principal);
      const me = await loadProfile(s.hot, principal.id);
      const key = newAgentKey(s.pepper);
      const agent = await em.transactional(async (tx) => {
        const e = await openEnrollment(tx, s.pepper, params.token, true);
        if (e.human_email && e.human_email.toLowerCase() !== me.email.toLowerCase()) throw forbidden('This enrollment request names another person as its approver');
        await assertBelowTierLimit(tx, principal.orgId, 'agents');
        const a = await insertAgent(tx, principal.orgId, principal.id, 'active', {
          name: e.name, description: e.description, intents_api_enabled: false, scopes: null, api_key_expires_at: null,
          tx_max_value_eth: null, tx_daily_limit_eth: null, tx_to_allowlist: [], tx_allowed_chains: [], tx_max_per_day: null, token_ttl_seconds: null,
        }, key, { humanEmail: e.human_email });
        await tx.execute("UPDATE agent_enrollments SET status = 'approved', agent_id = ?, decided_by = ?, decided_at = now() WHERE id = ?", [a.id, principal.id, e.id]);
        return a;
      });
      await auditAction(ctx, s, 'agent.register', { resourceType: 'agent', resourceId: agent.id, details: { via: 'enrollment' } });
      json(ctx, 201, { agent_id: agent.id, api_key: key.apiKey, agent: presentAgent(agent) });
    },
  }),
  route({
    method: 'POST', path: '/v1/agents/enroll/:token/deny', tag: 'Agents', auth: 'user',
    summary: 'Deny an enrollment request', params: tokenParams,
    success: { status: 204, description: 'Denied' }, errors: { 403: 'Not an owner/admin', 404: 'Unknown', 409: 'Already decided', 410: 'Expired' },
    async handler({ ctx, params, principal, services: s }) {
      const em = s.em();
      await requireManager(em, principal);
      await em.transactional(async (tx) => {
        const e = await openEnrollment(tx, s.pepper, params.token, true);
        await tx.execute("UPDATE agent_enrollments SET status = 'denied', decided_by = ?, decided_at = now() WHERE id = ?", [principal.id, e.id]);
      });
      await auditAction(ctx, s, 'agent.enrollment_denied', { resourceType: 'agent_enrollment' });
      ctx.status = 204;
    },
  }),
];
