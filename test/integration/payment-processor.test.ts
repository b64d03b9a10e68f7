// The payment processor (issue 34 §3) against Stripe's own API mock (stripe-mock, which the test
// stack's api is pointed at: test/helpers/global-setup.ts): checkout and portal URLs come from
// Stripe's API through the official client; webhook events, signed with Stripe's scheme and the
// stack's test secret, land a top-up as credits and a subscription as the plan, each event once
// (retries and replays change nothing), and anything unsigned, wrongly signed or stale changes
// nothing. An api without STRIPE_SECRET_KEY answers 501.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import Stripe from 'stripe';
import { apiUrl, call, closeDb, db, signup } from '../helpers/api.ts';
import { startSecondApi } from '../helpers/second-api.ts';
import { stopGroup } from '../helpers/stack.ts';

const WEBHOOK_SECRET = process.env.TEST_STRIPE_WEBHOOK_SECRET!;
const signer = new Stripe('sk_test_signer');
let base: string;
let plain: { url: string; child: ChildProcess } | undefined;

beforeAll(() => { base = apiUrl(); });
afterAll(async () => {
  if (plain) await stopGroup(plain.child);
  await closeDb();
});

type Event = { id: string; type: string; object: Record<string, unknown> };
const eventJson = (e: Event) => JSON.stringify({
  id: e.id, object: 'event', type: e.type, api_version: '2025-01-27', created: Math.floor(Date.now() / 1000), livemode: false,
  pending_webhooks: 1, request: { id: null, idempotency_key: null }, data: { object: e.object },
});
/** Posts the event signed as Stripe signs it (or with `header` as given). */
async function deliver(payload: string, header?: string) {
  const signature = header ?? signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
  return call('POST', '/v1/billing/webhooks', { base, raw: payload, headers: { 'stripe-signature': signature } });
}
const topupEvent = (id: string, sessionId: string, orgId: string, cents: number): Event => ({
  id, type: 'checkout.session.completed',
  object: { id: sessionId, object: 'checkout.session', mode: 'payment', payment_status: 'paid', amount_total: cents, metadata: { org_id: orgId, kind: 'credit_topup', amount_usd: String(cents / 100) } },
});

async function owner(tag: string) {
  const up = await call('POST', '/v1/auth/signup', { base, body: { email: `${tag}-${randomUUID().slice(0, 8)}@example.com`, password: 'correct-horse-battery' } });
  const token = up.body.access_token as string;
  return { token, orgId: (await call('GET', '/v1/auth/me', { base, token })).body.org_id as string };
}

test('checkout and portal URLs come from Stripe; the organization gets one customer there', async () => {
  const o = await owner('stripe-checkout');
  expect((await call('POST', '/v1/billing/credits/topup', { base, token: o.token, body: { amount_usd: 4 } })).status).toBe(400);
  expect((await call('POST', '/v1/billing/credits/topup', { base, token: o.token, body: { amount_usd: 20.5 } })).status).toBe(400);
  const topup = await call('POST', '/v1/billing/credits/topup', { base, token: o.token, body: { amount_usd: 50 } });
  expect(topup.status).toBe(200);
  expect(topup.body.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
  const sub = await call('POST', '/v1/billing/subscribe', { base, token: o.token, body: { tier: 'pro', interval: 'yearly' } });
  expect(sub.status).toBe(200);
  expect(sub.body.checkout_url).toMatch(/^https:\/\//);
  expect((await call('POST', '/v1/billing/subscribe', { base, token: o.token, body: { tier: 'enterprise', interval: 'monthly' } })).status).toBe(400);
  const portal = await call('POST', '/v1/billing/portal', { base, token: o.token });
  expect(portal.status).toBe(200);
  expect(portal.body.portal_url).toMatch(/^https:\/\//);
  const { rows } = await db().query('SELECT processor_customer_id FROM org_billing_accounts WHERE org_id = $1', [o.orgId]);
  expect(rows[0].processor_customer_id).toMatch(/^cus_/);
});

test('a paid top-up lands as credits once, however often or under whichever event it is reported; bad signatures change nothing', async () => {
  const o = await owner('stripe-topup');
  const balance = async () => (await call('GET', '/v1/billing/credits/balance', { base, token: o.token })).body.balance_cents;
  const payload = eventJson(topupEvent('evt_topup_1', 'cs_test_topup_1', o.orgId, 5_000));

  // Unsigned, wrongly signed, signed with another secret, or stale: 400, nothing lands.
  expect((await call('POST', '/v1/billing/webhooks', { base, raw: payload })).status).toBe(400);
  expect((await deliver(payload, 't=1,v1=00')).status).toBe(400);
  expect((await deliver(payload, signer.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' }))).status).toBe(400);
  const stale = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp: Math.floor(Date.now() / 1000) - 600 });
  expect((await deliver(payload, stale)).status).toBe(400);
  expect((await deliver(`${payload} `, signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }))).status).toBe(400);
  expect(await balance()).toBe(0);

  const first = await deliver(payload);
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ received: true, duplicate: false });
  expect(await balance()).toBe(5_000);
  // Stripe retries the delivery: the same event.
  expect((await deliver(payload)).body).toEqual({ received: true, duplicate: true });
  // The same payment reported under another event id: still one lot.
  expect((await deliver(eventJson(topupEvent('evt_topup_2', 'cs_test_topup_1', o.orgId, 5_000)))).body.duplicate).toBe(false);
  expect(await balance()).toBe(5_000);

  const ledger = await call('GET', '/v1/billing/credits/transactions', { base, token: o.token });
  expect(ledger.body.transactions).toEqual([expect.objectContaining({ type: 'topup', amount_cents: 5_000, description: 'Credit top-up ($50.00)' })]);
  const audit = await call('GET', '/v1/audit/events?action=billing.credits_purchased', { base, token: o.token });
  expect(audit.body.events).toHaveLength(1);
  expect(audit.body.events[0].details).toMatchObject({ amount_usd: '50.00', payment: 'cs_test_topup_1', processor_event: 'evt_topup_1' });
});

test('a subscription sets the plan until its period ends; its deletion puts the organization back on free', async () => {
  const o = await owner('stripe-sub');
  const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400;
  const subscription = (id: string, type: string, status: string) => eventJson({
    id, type, object: {
      id: 'sub_test_1', object: 'subscription', status, metadata: { org_id: o.orgId, tier: 'team', interval: 'monthly' },
      items: { object: 'list', data: [{ id: 'si_1', object: 'subscription_item', current_period_end: periodEnd }] },
    },
  });
  expect((await deliver(subscription('evt_sub_1', 'customer.subscription.created', 'active'))).status).toBe(200);
  const active = await call('GET', '/v1/billing/subscription', { base, token: o.token });
  expect(active.body).toMatchObject({ tier: 'team', status: 'active', interval: 'monthly', period_end: new Date(periodEnd * 1000).toISOString() });
  expect(active.body.usage.vaults.limit).toBe(100);

  expect((await deliver(subscription('evt_sub_2', 'customer.subscription.deleted', 'canceled'))).status).toBe(200);
  expect((await call('GET', '/v1/billing/subscription', { base, token: o.token })).body).toMatchObject({ tier: 'free', status: 'none' });
  // An event for an organization that does not exist, or of a kind not handled, is taken and changes nothing.
  expect((await deliver(eventJson(topupEvent('evt_gone', 'cs_gone', randomUUID(), 1_000)))).status).toBe(200);
  expect((await deliver(eventJson({ id: 'evt_other', type: 'invoice.paid', object: { id: 'in_1', object: 'invoice' } }))).body).toEqual({ received: true, duplicate: false });
});

test('an api without a processor (STRIPE_SECRET_KEY unset): checkout, portal and the webhook answer 501', async () => {
  plain = await startSecondApi('no-processor', fs.mkdtempSync(path.join(os.tmpdir(), 'vault-no-processor-')), { STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '', STRIPE_API_URL: '' });
  const a = await signup('no-processor');
  const b = plain.url;
  expect((await call('POST', '/v1/billing/credits/topup', { base: b, token: a.token, body: { amount_usd: 10 } })).status).toBe(501);
  expect((await call('POST', '/v1/billing/subscribe', { base: b, token: a.token, body: { tier: 'pro', interval: 'monthly' } })).status).toBe(501);
  expect((await call('POST', '/v1/billing/portal', { base: b, token: a.token })).status).toBe(501);
  expect((await call('POST', '/v1/billing/webhooks', { base: b, raw: '{}' })).status).toBe(501);
}, 90_000);
