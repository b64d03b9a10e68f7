// Whether a transaction's nonce was the request's own (domain/intents/transactions/nonce-gap.ts): the
// service renumbers the transactions it numbered itself when an earlier one is refused, never
// one whose nonce the agent chose.
export const name = '0026_transaction_nonce_chosen';
export const up = `
ALTER TABLE agent_transactions ADD COLUMN nonce_chosen boolean NOT NULL DEFAULT false;
`;
