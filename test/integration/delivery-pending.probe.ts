// Run by delivery-pending.test.ts under Node 24 (MikroORM is ESM only; jest runs CommonJS). Inside
// a transaction it rolls back: an organization with one webhook subscribed to `policy.created`,
// and events of a subscribed and an unsubscribed type; prints, as JSON, what insertDeliveries
// answered at each step of a dispatch pass and of its repeat after a stop half-way.
// Usage: DATABASE_URL=… delivery-pending.probe.ts
import { randomUUID } from 'node:crypto';
import { probeInRollback } from '../helpers/rolled-back-probe.ts';
import { query } from '../../db/query.ts';
import { claimBatches, insertDeliveries, markBatchesStarted, unstartedBatches } from '../../domain/webhooks/delivery-repository.ts';

await probeInRollback(async (em) => {
  const out: Record<string, unknown> = {};
  const db = query(em);
  const orgId = randomUUID();
  await db.insertInto('organizations').values({ id: orgId, name: 'delivery probe' }).execute();
  await db.insertInto('webhooks').values({ id: randomUUID(), org_id: orgId, url: 'https://hooks.example/x', events: ['policy.created'], secret_sealed: Buffer.alloc(1) }).execute();
  const event = async (type: string) => {
    const id = randomUUID();
    await db.insertInto('event_outbox').values({ id, org_id: orgId, event_type: type, payload: {} }).execute();
    return id;
  };
  const unsubscribed = await event('agent.transaction.signed');
  const subscribed = await event('policy.created');
  out.unsubscribed = await insertDeliveries(em, [unsubscribed]);
  out.subscribedFirst = await insertDeliveries(em, [subscribed]);
  // A pass that stopped after inserting: its repeat inserts nothing new, yet has work left.
  out.afterInsertOnly = await insertDeliveries(em, [subscribed]);
  await claimBatches(em, [subscribed]);
  out.afterClaim = await insertDeliveries(em, [subscribed]);
  const batches = await unstartedBatches(em, [subscribed]);
  out.batches = batches.length;
  await markBatchesStarted(em, batches.map((b) => b.batch_id));
  out.afterStart = await insertDeliveries(em, [subscribed]);
  out.mixed = await insertDeliveries(em, [unsubscribed, subscribed]);
  return out;
});
