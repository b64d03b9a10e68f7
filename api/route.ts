// A route is declared once: method, path, auth level, input schemas, its success answer (status
// and the presenter schema of the body) and its handler. The same declaration registers the Koa
// route and its OpenAPI operation, so the two cannot drift. Handlers validate nothing themselves
// and run no SQL: they call one domain command and return what a presenter built from its result.
import type { ParameterizedContext } from 'koa';
import type { z } from 'zod';
import type { PlatformCaller, Principal } from '../domain/auth/principal.ts';
import type { ActionContext } from '../domain/audit/action-context.ts';
import type { ApiServices } from './services.ts';
import type { BillableAction } from '../domain/billing/request-prices.ts';
import type { X402Settings } from '../domain/billing/x402-requirements.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/**
 * public: no credentials; user: a human's token or key; principal: a human or an agent;
 * platform: an app's `plt_` key only; user_or_platform: a human, or an app (for itself).
 * A `plt_` key reaches only the last two.
 */
export type AuthLevel = 'public' | 'user' | 'principal' | 'platform' | 'user_or_platform';
/** 302: a link opened in a browser (the handler sets Location), with a small JSON body for programs. */
export type SuccessStatus = 200 | 201 | 202 | 204 | 302;

export type RequestState = {
  requestId: string;
  clientIp: string;
  principal?: Principal;
  /** The platform app behind a `plt_` key (routes of level platform or user_or_platform). */
  platformApp?: PlatformCaller;
  /** A short label of the matched route for the audit record. */
  routeLabel?: string;
  /** The route that took the request: its declaration says which path segments are credentials. */
  route?: RouteDef;
  /** Set once a command recorded this request's own audit event (e.g. secret.read). */
  audited?: boolean;
  /** A handler's choice among its route's success statuses (`success.also`), e.g. 200 for a replay. */
  successStatus?: SuccessStatus;
  /** A billable request's charge as stage 3 or 6 decided it (domain/billing/request-prices.ts). */
  billing?: RequestCharge;
  /** Stage 3 let a billable request through unpaid while x402 is on: stage 6 answers its 402 in x402 form. */
  x402?: { settings: X402Settings; action: BillableAction; resource: string };
};

/** How a billable request was paid for: within the monthly quota, from prepaid credits, or by an x402 payment. */
export type RequestCharge = { action: BillableAction; priceUsd: string; paidWith: 'quota' | 'credits' | 'x402' };

export type AppContext = ParameterizedContext<RequestState>;

export type HandlerInput<B, Q, P> = {
  ctx: AppContext;
  body: B;
  query: Q;
  params: P;
  services: ApiServices;
  /** Present on every route whose auth level is not `public`. */
  principal: Principal;
  /** The request as domain commands see it (caller, address, request id) for their audit records. */
  action: ActionContext;
};

/** The body a handler returns: what its success schema describes, or nothing (204). */
export type SuccessBody<S> = [S] extends [z.ZodType] ? z.output<S> : void;

export type RouteDef<B = unknown, Q = unknown, P = unknown, S extends z.ZodType | undefined = z.ZodType | undefined> = {
  method: HttpMethod;
  path: string;
  summary: string;
  tag: string;
  auth: AuthLevel;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /**
   * Path parameters that are credentials (a trigger token, a share link id): masked wherever the
   * path is recorded (api/path-redaction.ts). Every `:token` parameter must be listed.
   */
  secretParams?: readonly string[];
  /**
   * A platform app may call this (auth `principal`) with its plt_ key and `X-Platform-Connection`:
   * it acts as that connection, reaching only what the user granted (domain/platform/grant-commands.ts).
   */
  platformConnection?: boolean;
  /** The priced action this route's requests are (domain/billing/request-prices.ts): they count against the monthly quota. */
  billable?: BillableAction;
  /** A larger body limit than BODY_LIMIT_BYTES for this route (the Temporal codec endpoint's histories). */
  bodyLimitBytes?: number;
  /** The one success answer. Every status but 204 has a body described by a registered presenter schema. */
  success: { status: SuccessStatus; description: string; schema?: S; also?: { status: SuccessStatus; description: string }[] };
  /** Problem statuses this route answers with besides the generic ones, with a short reason. */
  errors?: Record<number, string>;
  handler: (input: HandlerInput<B, Q, P>) => Promise<SuccessBody<S>>;
};

export function route<B = undefined, Q = undefined, P = undefined, S extends z.ZodType | undefined = undefined>(def: RouteDef<B, Q, P, S>): RouteDef {
  return def as unknown as RouteDef;
}
