// Retention (domain/retention) prunes the billing history and settled x402 payment proofs older
// than RETENTION_DAYS, in bounded batches, oldest first. billing_events' one index leads with the
// organization, so without one on created_at alone every batch would scan the whole table; the
// settled proofs are found through a partial index on settled_at (verifying and settle_failed
// proofs are kept and never looked up by it).
export const name = '0051_billing_events_created_idx';

export const up = `
CREATE INDEX billing_events_created_idx ON billing_events (created_at);
CREATE INDEX x402_payments_settled_idx ON x402_payments (settled_at) WHERE status = 'settled';
`;
