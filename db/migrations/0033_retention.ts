// Retention (domain/retention): execution events older than RETENTION_DAYS are deleted daily in
// bounded batches, oldest first. Their one index leads with the organization and agent, so
// without this one every batch would scan the whole table. The outbox needs none (its walk
// follows the seq index) and webhook deliveries are found through their event (event_id leads
// their unique index).
export const name = '0033_retention';

export const up = `
CREATE INDEX execution_events_created_idx ON execution_events (created_at);
`;
