// Domain events go to the outbox inside the transaction of the change that caused them, so a
// crash can never lose one or emit one for a change that did not commit. A trigger on the table
// (migration 0010) wakes the dispatcher at commit; the payload is the event's `data` as
// delivered, so it never holds a secret value.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from './catalogue.ts';
import type { HotReads } from '../../db/hot-reads.ts';

export type { DomainEvent } from './catalogue.ts';

export async function emitEvent(tx: EntityManager, orgId: string, type: DomainEvent, data: Record<string, unknown>): Promise<void> {
  await tx.execute('INSERT INTO event_outbox (id, org_id, event_type, payload) VALUES (?, ?, ?, ?::jsonb)',
    [randomUUID(), orgId, type, JSON.stringify(data)]);
}

/**
 * An event for something that writes nothing else (a signature): its own statement, prepared on
 * the hot pool, instead of a transaction through the ORM.
 */
export async function emitEventAlone(hot: HotReads, orgId: string, type: DomainEvent, data: Record<string, unknown>): Promise<void> {
  await hot.one('event-outbox-insert', 'INSERT INTO event_outbox (id, org_id, event_type, payload) VALUES ($1, $2, $3, $4::jsonb)',
    [randomUUID(), orgId, type, JSON.stringify(data)]);
}
