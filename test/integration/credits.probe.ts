// Run by credits.test.ts under Node 24 (MikroORM is ESM only; jest runs CommonJS). Prepaid credits
// on Postgres (domain/billing: credit-meter.ts over credit-repository.ts): a top-up lands once per
// payment; two credit meters (two api processes) paying $0.001 requests side by side never spend
// more than the balance; lots are spent earliest expiry first; expired lots and organizations
// that chose x402 lend nothing. Prints what happened as JSON; the organization is created and
// deleted here. Usage: DATABASE_URL=… credits.probe.ts
import { randomUUID } from 'node:crypto';
import { openDb } from '../../db/orm.ts';
import { query } from '../../db/query.ts';
import { CreditMeter } from '../../domain/billing/credit-meter.ts';
import { postgresCreditStore } from '../../domain/billing/postgres-credit-store.ts';
import { addCredits, balanceOf, leaseCredits, ledgerPage, setOverageMethod, settleCredits, spendableOf } from '../../domain/billing/credit-repository.ts';
import { monthOf } from '../../domain/billing/request-quotas.ts';

const orm = await openDb(process.env.DATABASE_URL!, 4);
const db = () => orm.em.fork();
const orgId = randomUUID();
const out: Record<string, unknown> = {};
const lots = async () => (await query(db()).selectFrom('credit_lots').select(['external_ref', 'remaining_micros']).where('org_id', '=', orgId)
  .orderBy('created_at').execute()).map((l) => [l.external_ref, Number(l.remaining_micros)]);
try {
  await query(db()).insertInto('organizations').values({ id: orgId, name: 'credits probe' }).execute();
  // Two payments; the second reported twice (the processor retries).
  out.topups = [
    await addCredits(db(), orgId, 50_000, { externalRef: 'pay_late', description: 'top-up' }),
    await addCredits(db(), orgId, 20_000, { externalRef: 'pay_soon', description: 'top-up' }),
    await addCredits(db(), orgId, 20_000, { externalRef: 'pay_soon', description: 'top-up' }),
  ];
  // pay_soon expires first, so it is spent first.
  await query(db()).updateTable('credit_lots').set({ expires_at: new Date(Date.now() + 86_400_000) }).where('external_ref', '=', 'pay_soon').execute();

  const meters = [0, 1].map(() => new CreditMeter({ store: postgresCreditStore(db), flushMs: 50 }));
  const first = await Promise.all(Array.from({ length: 30 }, (_, i) => meters[i % 2]!.pay(orgId, 1_000)));
  await Promise.all(meters.map((m) => m.flush(true)));
  out.afterThirty = { paid: first.filter(Boolean).length, lots: await lots() };
  const rest = await Promise.all(Array.from({ length: 200 }, (_, i) => meters[i % 2]!.pay(orgId, 1_000)));
  await Promise.all(meters.map((m) => m.stop()));
  out.paid = first.filter(Boolean).length + rest.filter(Boolean).length;
  out.lots = await lots();
  out.spendable = await spendableOf(db(), orgId);
  const account = await query(db()).selectFrom('org_billing_accounts').select('credit_leased_micros').where('org_id', '=', orgId).executeTakeFirstOrThrow();
  out.leased = Number(account.credit_leased_micros);
  const usage = await query(db()).selectFrom('org_request_usage').select(['used', 'paid', 'paid_micros'])
    .where('org_id', '=', orgId).where('month', '=', monthOf(new Date())).executeTakeFirstOrThrow();
  out.usage = { used: Number(usage.used), paid: Number(usage.paid), paidMicros: Number(usage.paid_micros) };
  const { entries, total } = await ledgerPage(db(), orgId, 0, 100);
  out.ledger = {
    total,
    topups: entries.filter((e) => e.type === 'topup').map((e) => Number(e.amount_micros)),
    usageSum: entries.filter((e) => e.type === 'usage').reduce((s, e) => s + Number(e.amount_micros), 0),
    lastBalance: Number(entries[0]!.balance_after_micros),
    neverNegative: entries.every((e) => Number(e.balance_after_micros) >= 0),
  };

  // A process died holding a lease: it counts until the account has gone a minute without a settlement.
  await addCredits(db(), orgId, 5_000, { externalRef: 'pay_stranded', description: 'top-up' });
  await query(db()).updateTable('org_billing_accounts').set({ credit_leased_micros: 5_000 }).where('org_id', '=', orgId).execute();
  const whileLive = await leaseCredits(db(), orgId, 5_000);
  await query(db()).updateTable('org_billing_accounts').set({ updated_at: new Date(Date.now() - 120_000) }).where('org_id', '=', orgId).execute();
  const afterDeath = await leaseCredits(db(), orgId, 5_000);
  out.stranded = { whileLive, afterDeath };
  await settleCredits(db(), [{ orgId, month: monthOf(new Date()), paid: 0, spentMicros: 0, returnedMicros: 5_000 }]);
  await query(db()).updateTable('credit_lots').set({ remaining_micros: 0 }).where('external_ref', '=', 'pay_stranded').execute();

  // x402 chosen: credits lend nothing, even with a balance.
  await addCredits(db(), orgId, 10_000, { externalRef: 'pay_x402', description: 'top-up' });
  await setOverageMethod(db(), orgId, 'x402');
  const x402 = new CreditMeter({ store: postgresCreditStore(db), flushMs: 50 });
  out.underX402 = await x402.pay(orgId, 1_000);
  await x402.stop();
  // An expired lot is not spendable and not in the balance.
  await query(db()).updateTable('credit_lots').set({ expires_at: new Date(Date.now() - 1_000) }).where('external_ref', '=', 'pay_x402').execute();
  out.afterExpiry = await balanceOf(db(), orgId, 90);
} finally {
  await query(db()).deleteFrom('organizations').where('id', '=', orgId).execute();
  await orm.close();
}
process.stdout.write(JSON.stringify(out));
