// Input schemas of the approval routes. The request body takes both spellings clients send
// (reference: `summary`, `risk_tier`; newer MCP: `payload`, `declared_risk_tier`), and the
// decision both the reference's `approve|reject` and the SDK's `approved|rejected`.
import { z } from 'zod';
import { idParam, limitField } from '../../input/fields.ts';
import { APPROVAL_STATUSES } from '../../../domain/approvals/approval-repository.ts';
import { MAX_APPROVAL_TTL_SECONDS, MIN_APPROVAL_TTL_SECONDS } from '../../../domain/approvals/approval-ttl.ts';

/** What an approval's summary may weigh, as JSON. */
export const SUMMARY_MAX_BYTES = 32 * 1024;

const summaryObject = z.record(z.string(), z.unknown())
  .refine((o) => Buffer.byteLength(JSON.stringify(o), 'utf8') <= SUMMARY_MAX_BYTES, { message: `must be at most ${SUMMARY_MAX_BYTES} bytes of JSON` });
const riskTier = z.number().int().min(1).max(3);

export const requestApprovalBody = z.object({
  action: z.string().trim().min(1).max(100),
  target_type: z.string().trim().min(1).max(100),
  target_id: z.string().trim().min(1).max(256),
  summary: summaryObject.optional(),
  payload: summaryObject.optional(),
  reason: z.string().max(2000).nullable().optional(),
  risk_tier: riskTier.optional(),
  declared_risk_tier: riskTier.optional(),
  /** How long the approval waits for a decision before it expires (default 24 hours). */
  expires_in_seconds: z.number().int().min(MIN_APPROVAL_TTL_SECONDS).max(MAX_APPROVAL_TTL_SECONDS).optional(),
}).superRefine((b, ctx) => {
  if (b.summary === undefined && b.payload === undefined) {
    ctx.addIssue({ code: 'custom', path: ['summary'], message: 'is required (an object describing the request; `payload` is accepted too)' });
  }
}).transform((b) => ({
  action: b.action, target_type: b.target_type, target_id: b.target_id,
  summary: (b.summary ?? b.payload)!, reason: b.reason || null, risk_tier: b.risk_tier ?? b.declared_risk_tier ?? 1,
  ...(b.expires_in_seconds !== undefined ? { expires_in_seconds: b.expires_in_seconds } : {}),
}));

const DECISIONS = { approve: 'approved', reject: 'rejected', approved: 'approved', rejected: 'rejected' } as const;

export const decideApprovalBody = z.object({
  decision: z.enum(['approve', 'reject', 'approved', 'rejected'], { message: 'must be approve or reject' }),
  reason: z.string().max(2000).nullable().optional(),
}).transform((b) => ({ decision: DECISIONS[b.decision], reason: b.reason || null }));

export const approvalParams = z.object({ id: idParam });

export const approvalListQuery = z.object({
  status: z.enum(APPROVAL_STATUSES).optional(),
  limit: limitField(100, 50),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});

/** The SDK's POST …/{id}/approve and …/{id}/deny: the decision is the path's, the body may carry a reason. */
export const sdkDecisionBody = z.object({ reason: z.string().max(2000).nullable().optional() }).optional()
  .transform((b) => ({ reason: b?.reason || null }));

/** The mailed link's query (reference facts §11.1): its token and `approved|rejected`. */
export const quickDecideQuery = z.object({
  token: z.string().min(1).max(256),
  decision: z.enum(['approved', 'rejected'], { message: 'must be approved or rejected' }),
});
