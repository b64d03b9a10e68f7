// A route is declared once: method, path, auth level, zod schemas and handler. The same
// declaration registers the Koa route and its OpenAPI operation, so the two cannot drift.
import type { ParameterizedContext } from 'koa';
import type { z } from 'zod';
import type { Principal } from '../domain/auth/principal.ts';
import type { ApiServices } from './services.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** public: no credentials; user: a human's token or key; principal: a human or an agent. */
export type AuthLevel = 'public' | 'user' | 'principal';

export type RequestState = {
  requestId: string;
  clientIp: string;
  principal?: Principal;
  /** A short label of the matched route for the audit record. */
  routeLabel?: string;
  /** Set once a handler recorded this request's own audit event (e.g. secret.read). */
  audited?: boolean;
};

export type AppContext = ParameterizedContext<RequestState>;

export type HandlerInput<B, Q, P> = {
  ctx: AppContext;
  body: B;
  query: Q;
  params: P;
  services: ApiServices;
  /** Present on every route whose auth level is not `public`. */
  principal: Principal;
};

export type RouteDef<B = unknown, Q = unknown, P = unknown> = {
  method: HttpMethod;
  path: string;
  summary: string;
  tag: string;
  auth: AuthLevel;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /** Status codes this route answers with besides the generic errors, with a short description. */
  responses: Record<number, string>;
  handler: (input: HandlerInput<B, Q, P>) => Promise<void>;
};

export function route<B = undefined, Q = undefined, P = undefined>(def: RouteDef<B, Q, P>): RouteDef {
  return def as unknown as RouteDef;
}

export function json(ctx: AppContext, status: number, body: unknown): void {
  ctx.status = status;
  ctx.body = body;
}
