// The organization's usage against its plan, and its subscription summary (reference facts §16), for its people.
import { route } from '../../route.ts';
import { SubscriptionSchema, UsageSummarySchema, presentSubscription, presentUsageSummary } from '../../presenters/billing.ts';

export const billingUsageRoutes = [
  route({
    method: 'GET', path: '/v1/billing/usage', tag: 'Billing', auth: 'user',
    summary: "The organization's plan, its monthly request quota and this month's counted requests (secret reads and writes, share creation, audit queries)",
    success: { status: 200, description: 'The usage summary', schema: UsageSummarySchema },
    handler: async ({ principal, services: s }) => presentUsageSummary(await s.billingUsage.summary(principal.orgId)),
  }),
  route({
    method: 'GET', path: '/v1/billing/subscription', tag: 'Billing', auth: 'user',
    summary: "The organization's plan and its state, its prepaid credit balance and overage method, and its usage against each cap",
    success: { status: 200, description: 'The subscription summary', schema: SubscriptionSchema },
    handler: async ({ principal, services: s }) => presentSubscription(await s.billingSubscription.summary(principal.orgId)),
  }),
];
