// The organization's billing history (reference facts §16): its latest billable requests, newest
// first, each with the route's pattern, the final status, the route's price and whether it was paid
// beyond the monthly quota; for its people. Read from the audit log, whose records of billable
// requests carry their charge where requests are counted (REQUEST_QUOTAS=on) or paid with x402.
import { z } from 'zod';
import { route } from '../../route.ts';
import { BillingHistorySchema, presentBillingHistory } from '../../presenters/billing.ts';
import { HISTORY_LIMIT_MAX } from '../../../domain/billing/billing-history.ts';

const historyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(HISTORY_LIMIT_MAX).default(50),
});

export const billingHistoryRoutes = [
  route({
    method: 'GET', path: '/v1/billing/history', tag: 'Billing', auth: 'user',
    summary: "The organization's latest billable requests, newest first (limit 1..200, default 50)",
    query: historyQuery,
    success: { status: 200, description: 'The latest events', schema: BillingHistorySchema },
    errors: { 400: 'limit is not an integer from 1 to 200' },
    handler: async ({ query, principal, services: s }) => presentBillingHistory(await s.billingHistory.latest(principal.orgId, query.limit)),
  }),
];
