// The Idempotency-Key uniqueness of agent transactions as a partial index: most requests carry no
// key, and a unique constraint indexed every one of their rows (agent_id, NULL) for nothing. The
// rule is the same: one row per agent and key. Lookups by agent and key use the partial index
// (`idempotency_key = $2` implies NOT NULL).
export const name = '0024_transaction_idempotency_index';
export const up = `
ALTER TABLE agent_transactions DROP CONSTRAINT agent_transactions_idempotency_unique;
CREATE UNIQUE INDEX agent_transactions_idempotency_unique ON agent_transactions (agent_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
`;
