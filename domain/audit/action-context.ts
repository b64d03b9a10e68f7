// What a domain command knows of the request that asked for it: who, from where, and which
// request, so the command can write its own audit record. No Koa types: commands are also
// called from activities and tests.
import type { PlatformCaller, Principal } from '../auth/principal.ts';

export type ActionContext = {
  /** The verified caller; null on public routes (signup, login, enrollment …). */
  principal: Principal | null;
  /** The platform app calling with its `plt_` key, on the platform API's routes (then principal is null). */
  platformApp?: PlatformCaller | null;
  clientIp: string;
  requestId: string;
  method: string;
  /** The request path with the segments its route declares credentials masked (api/path-redaction.ts). */
  path: string;
  /** Called once the action's own record is durable: the request then needs no generic one. */
  onAudited: () => void;
  /** A billable request's charge, recorded with its audit record: the billing history reads it there. */
  charge?: AuditedCharge | null;
};

/** What a billable request cost and how it was paid (GET /v1/billing/history reads it from the audit log). */
export type AuditedCharge = {
  price_usd: string;
  paid_with: 'quota' | 'credits' | 'x402';
  /** The route's pattern, never the request's path (a secret's path names the secret). */
  endpoint: string;
  /** The answer's status: the route's success status when the action recorded it itself. */
  status: number;
};
