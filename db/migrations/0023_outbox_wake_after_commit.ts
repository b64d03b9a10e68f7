// The outbox trigger no longer fires for sessions that wake the dispatcher themselves.
//
// NOTIFY makes a committing transaction take a database-wide lock that is held through its
// commit record's flush, so every transaction that inserted an event committed one at a time:
// no group commit, and a queue of writers behind each flush. The hot pool's sessions (db/hot-reads.ts)
// set ocv.outbox_notify = off and, after their statement has committed, wake the dispatcher through
// a throttled NOTIFY of their own (domain/events/outbox.ts, wakeOutbox). Every other session keeps
// the trigger. A wake that never comes (a crash between the commit and the NOTIFY) costs only
// latency: the dispatcher's sweep finds the event.
export const name = '0023_outbox_wake_after_commit';
export const up = `
DROP TRIGGER event_outbox_notify ON event_outbox;
CREATE TRIGGER event_outbox_notify AFTER INSERT ON event_outbox
  FOR EACH STATEMENT WHEN (current_setting('ocv.outbox_notify', true) IS DISTINCT FROM 'off')
  EXECUTE FUNCTION event_outbox_notify();
`;
