// Prepaid credits (issue 34 §2; reference facts §16): the balance, the ledger page by page (the
// reference's page/limit, and limit/offset as its other generation sends), and how a request over
// the monthly quota is paid. PATCH overage-method takes `method` or `overage_method` (the two
// published spellings) and answers `overage_method`; owners and admins only.
import { z } from 'zod';
import { route } from '../../route.ts';
import {
  CreditBalanceSchema, CreditTransactionsSchema, OverageMethodSchema, presentCreditBalance, presentCreditTransactions,
} from '../../presenters/billing.ts';

const TAG = 'Billing';
const MAX_PAGE = 100;

const transactionsQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(50),
  offset: z.coerce.number().int().min(0).max(100_000_000).optional(),
}).refine((q) => q.page === undefined || q.offset === undefined, { path: ['offset'], message: 'give page or offset, not both' });

const method = z.enum(['credits', 'x402']);
const overageBody = z.object({ method: method.optional(), overage_method: method.optional() })
  .refine((b) => (b.method ?? b.overage_method) !== undefined, { path: ['method'], message: 'required: credits or x402' })
  .refine((b) => !(b.method && b.overage_method && b.method !== b.overage_method), { path: ['overage_method'], message: 'differs from method' });

export const billingCreditRoutes = [
  route({
    method: 'GET', path: '/v1/billing/credits/balance', tag: TAG, auth: 'user',
    summary: "The organization's prepaid credit balance and what of it expires within 90 days",
    success: { status: 200, description: 'The balance', schema: CreditBalanceSchema },
    handler: async ({ action, services: s }) => presentCreditBalance(await s.billingCredits.balance(action)),
  }),
  route({
    method: 'GET', path: '/v1/billing/credits/transactions', tag: TAG, auth: 'user',
    summary: "The organization's credit ledger, newest first: top-ups, usage over the monthly quota, expiry",
    query: transactionsQuery,
    success: { status: 200, description: 'A page of the ledger', schema: CreditTransactionsSchema },
    errors: { 400: 'Invalid page, limit or offset' },
    handler: async ({ query, action, services: s }) => presentCreditTransactions(
      await s.billingCredits.transactions(action, query.offset ?? ((query.page ?? 1) - 1) * query.limit, query.limit)),
  }),
  route({
    method: 'PATCH', path: '/v1/billing/overage-method', tag: TAG, auth: 'user',
    summary: 'How a request over the monthly quota is paid: prepaid credits or x402 (owners and admins)',
    body: overageBody,
    success: { status: 200, description: 'The method now in use', schema: OverageMethodSchema },
    errors: { 400: 'method missing or not credits or x402', 403: 'Only organization owners and admins can do this' },
    handler: async ({ body, action, principal, services: s }) => {
      const method = await s.billingCredits.setOverageMethod(action, (body.method ?? body.overage_method)!);
      // Credits this process leased under the old method go back now (others': at their next lease).
      if (method === 'x402') await s.creditMeter?.release(principal.orgId);
      s.creditHeaders?.invalidate(principal.orgId);
      return { overage_method: method };
    },
  }),
];
