// Domain events go to the outbox inside the transaction of the change that caused them, so a
// crash can never lose one or emit one for a change that did not commit.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export type DomainEvent =
  | 'secret.created' | 'secret.updated' | 'secret.deleted' | 'secret.rotated'
  | 'policy.created' | 'policy.updated' | 'policy.deleted';

export async function emitEvent(tx: EntityManager, orgId: string, type: DomainEvent, payload: Record<string, unknown>): Promise<void> {
  await tx.execute('INSERT INTO event_outbox (id, org_id, event_type, payload) VALUES (?, ?, ?, ?::jsonb)',
    [randomUUID(), orgId, type, JSON.stringify(payload)]);
}
