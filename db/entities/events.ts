// The domain event outbox, written in the transaction of the change (migrations 0002, 0010, 0023;
// domain/events).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const EventOutbox = defineEntity({
  name: 'EventOutbox',
  tableName: 'event_outbox',
  properties: {
    id: p.uuid().primary(),
    /** bigserial: the dispatcher's order. */
    seq: p.bigint('number').autoincrement().unique(),
    org_id: p.uuid(),
    event_type: p.text(),
    payload: p.json<Record<string, unknown>>(),
    created_at: p.datetime().defaultRaw('now()'),
    dispatched_at: p.datetime().nullable(),
  },
  indexes: [{ name: 'event_outbox_pending_idx', properties: ['seq'], where: 'dispatched_at IS NULL' }],
  // Wakes the dispatcher at commit, unless the session wakes it itself (0023). The function
  // event_outbox_notify() is the migration's; as a raw expression, only the name is compared.
  triggers: [
    {
      name: 'event_outbox_notify',
      timing: 'after',
      events: ['insert'],
      forEach: 'statement',
      expression: "CREATE TRIGGER event_outbox_notify AFTER INSERT ON event_outbox FOR EACH STATEMENT WHEN (current_setting('ocv.outbox_notify', true) IS DISTINCT FROM 'off') EXECUTE FUNCTION event_outbox_notify()",
    },
  ],
});
export type EventOutboxRow = InferEntity<typeof EventOutbox>;
