// The Intents API's transactions (spec §4.9, issue 13 §3; reference TransactionResponse).
// agent_transactions: one row per transaction an agent asked for, from the request to its end:
//   pending            (the reference's word; rows are written once signed, so unused)
//   signed             signed exactly once: signed_tx and tx_hash stored; its broadcast workflow runs
//   sign_only          signed for the caller to send (POST …/transactions/sign); never broadcast here
//   broadcast          the node accepted signed_tx
//   confirmed / failed mined (receipt success), or ended (reverted on chain, refused by the node)
//   simulation_failed  simulate_first reverted: nothing signed, nothing reserved
// reserved_day names the UTC day whose spend and count the row holds (null once released, or for
// rows that never held any). A row, its reservation and its signature commit together. The idempotency key is unique per agent; a key older than 24 h is
// freed by the next request that brings it. request_digest (SHA-256 of the request's fields) tells
// a replay from a different transaction sent under the same key.
// agent_tx_daily_usage: the per-agent, per-UTC-day counters the guardrails tx_daily_limit_eth and
// tx_max_per_day cap, changed only by one conditional statement each (reserve, release).
// transaction_simulations: every simulation's answer, so a transaction can name the one it ran.
export const name = '0021_agent_transactions';

export const up = `
CREATE TABLE agent_transactions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  chain text NOT NULL,
  chain_id bigint NOT NULL,
  from_address text,
  to_address text NOT NULL,
  value_wei numeric(78,0) NOT NULL CHECK (value_wei >= 0),
  data text,
  nonce bigint,
  tx_type smallint,
  gas_limit numeric(20,0),
  gas_price numeric(78,0),
  max_fee_per_gas numeric(78,0),
  max_priority_fee_per_gas numeric(78,0),
  status text NOT NULL CHECK (status IN ('pending','signed','sign_only','broadcast','confirmed','failed','simulation_failed')),
  signed_tx text,
  tx_hash text,
  error_message text,
  reserved_day date,
  idempotency_key text,
  request_digest text,
  simulation_id uuid,
  simulation_status text,
  block_number bigint,
  gas_used numeric(20,0),
  broadcast_attempts integer NOT NULL DEFAULT 0,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  signed_at timestamptz,
  broadcast_at timestamptz,
  confirmed_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT agent_transactions_idempotency_unique UNIQUE (agent_id, idempotency_key),
  CONSTRAINT agent_transactions_signed_has_bytes CHECK (status IN ('pending','simulation_failed','failed') OR (signed_tx IS NOT NULL AND tx_hash IS NOT NULL))
);
CREATE INDEX agent_transactions_agent_idx ON agent_transactions (agent_id, created_at DESC);
CREATE INDEX agent_transactions_org_idx ON agent_transactions (org_id);
-- The sweeper's work: rows left pending or signed by a crash, broadcasts to follow.
CREATE INDEX agent_transactions_open_idx ON agent_transactions (updated_at) WHERE status IN ('pending','signed','broadcast');
-- Nonce allocation: the sender's transactions the node may not count yet.
CREATE INDEX agent_transactions_sender_idx ON agent_transactions (chain_id, from_address, nonce) WHERE status IN ('signed','broadcast');

CREATE TABLE agent_tx_daily_usage (
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  day date NOT NULL,
  spent_wei numeric(78,0) NOT NULL DEFAULT 0 CHECK (spent_wei >= 0),
  tx_count integer NOT NULL DEFAULT 0 CHECK (tx_count >= 0),
  PRIMARY KEY (agent_id, day)
);

CREATE TABLE transaction_simulations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  chain_id bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('success','reverted','error')),
  result jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX transaction_simulations_agent_idx ON transaction_simulations (agent_id, created_at DESC);
`;
