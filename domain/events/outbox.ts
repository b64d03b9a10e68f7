// Domain events go to the outbox inside the transaction of the change that caused them, so a
// crash can never lose one or emit one for a change that did not commit. A trigger on the table
// (migration 0010) wakes the dispatcher at commit, except for events written on the hot pool,
// whose writers wake it after the commit (wakeOutbox, migration 0023). The payload is the event's
// `data` as delivered, so it never holds a secret value.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from './catalogue.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import { insertEvent, insertEventAlone, notifyOutbox } from './outbox-repository.ts';

export { OUTBOX_CHANNEL, type OutboxEvent } from './outbox-repository.ts';
export type { DomainEvent } from './catalogue.ts';

export async function emitEvent(tx: EntityManager, orgId: string, type: DomainEvent, data: Record<string, unknown>): Promise<void> {
  await insertEvent(tx, randomUUID(), orgId, type, data);
}

/**
 * An event for something that writes nothing else (a signature): its own statement, prepared on
 * the hot pool, instead of a transaction through the ORM; the dispatcher is woken after it commits.
 */
export async function emitEventAlone(hot: HotReads, orgId: string, type: DomainEvent, data: Record<string, unknown>): Promise<void> {
  await insertEventAlone(hot, randomUUID(), orgId, type, data);
  wakeOutbox(hot);
}

/**
 * Wakes the outbox dispatcher after events written through the hot pool have committed (its
 * sessions skip the outbox trigger, migration 0023). One NOTIFY at a time per pool, at most one
 * every WAKE_SPACING_MS: a burst of signatures costs a few wakes, not one serialized commit each.
 * A lost wake (an error, a crash) only delays the event until the dispatcher's sweep.
 */
export function wakeOutbox(hot: HotReads): void {
  let waker = wakers.get(hot);
  if (!waker) wakers.set(hot, waker = new OutboxWaker(hot));
  waker.poke();
}

const WAKE_SPACING_MS = 2;
const wakers = new WeakMap<HotReads, OutboxWaker>();

class OutboxWaker {
  private readonly hot: HotReads;
  private busy = false;
  private again = false;

  constructor(hot: HotReads) {
    this.hot = hot;
  }

  poke(): void {
    if (this.busy) { this.again = true; return; }
    this.busy = true;
    this.again = false;
    const spaced = new Promise<void>((r) => setTimeout(r, WAKE_SPACING_MS));
    const sent = notifyOutbox(this.hot).catch(() => undefined);
    void Promise.all([sent, spaced]).then(() => {
      this.busy = false;
      if (this.again) this.poke();
    });
  }
}
