// Multisig treasuries on a real Safe (issue 31 §2, §3; spec §4.7, reference facts §22): a
// treasury names a deployed Safe on an EVM chain and its signers (users or agents with their
// addresses); agents ask for access; proposals carry the Safe transaction (its EIP-712 hash and
// the Safe nonce it was built on) and collect signatures; an executed proposal points at the
// agent_transactions row that carried `execTransaction` (sent by the Intents API's broadcaster).
export const name = '0035_safe_treasuries';
export const up = `
CREATE TABLE treasuries (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  safe_address text NOT NULL,
  chain text NOT NULL,
  chain_id bigint NOT NULL,
  threshold integer NOT NULL CHECK (threshold >= 1),
  created_by uuid NOT NULL,
  gas_payer_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX treasuries_safe_unique ON treasuries (org_id, chain_id, safe_address);

CREATE TABLE treasury_signers (
  id uuid PRIMARY KEY,
  treasury_id uuid NOT NULL REFERENCES treasuries(id) ON DELETE CASCADE,
  signer_type text NOT NULL CHECK (signer_type IN ('user', 'agent')),
  signer_id uuid NOT NULL,
  signer_address text NOT NULL,
  added_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX treasury_signers_address_unique ON treasury_signers (treasury_id, signer_address);

CREATE TABLE treasury_access_requests (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  treasury_id uuid NOT NULL REFERENCES treasuries(id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied')),
  reason text,
  approval_id uuid,
  requested_at timestamptz NOT NULL DEFAULT now(),
  resolved_by uuid,
  resolved_at timestamptz
);
CREATE INDEX treasury_access_requests_treasury_idx ON treasury_access_requests (treasury_id, requested_at);
CREATE UNIQUE INDEX treasury_access_requests_pending_unique ON treasury_access_requests (treasury_id, agent_id) WHERE status = 'pending';

CREATE TABLE treasury_proposals (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  treasury_id uuid NOT NULL REFERENCES treasuries(id) ON DELETE CASCADE,
  proposed_by uuid NOT NULL,
  proposed_by_type text NOT NULL CHECK (proposed_by_type IN ('user', 'agent')),
  chain text NOT NULL,
  chain_id bigint NOT NULL,
  safe_address text NOT NULL,
  to_address text NOT NULL,
  value_wei numeric(78,0) NOT NULL CHECK (value_wei >= 0),
  data_hex text,
  operation smallint NOT NULL DEFAULT 0 CHECK (operation IN (0, 1)),
  safe_tx_hash text NOT NULL,
  nonce bigint NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'executing', 'executed', 'rejected', 'expired', 'cancelled', 'failed')),
  threshold integer NOT NULL,
  expires_at timestamptz NOT NULL,
  transaction_id uuid,
  executed_tx_hash text,
  executed_at timestamptz,
  error_message text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX treasury_proposals_treasury_idx ON treasury_proposals (treasury_id, created_at);

CREATE TABLE treasury_proposal_signatures (
  id uuid PRIMARY KEY,
  proposal_id uuid NOT NULL REFERENCES treasury_proposals(id) ON DELETE CASCADE,
  signer_id uuid NOT NULL,
  signer_type text NOT NULL CHECK (signer_type IN ('user', 'agent')),
  signer_address text NOT NULL,
  signature text,
  decision text NOT NULL CHECK (decision IN ('approve', 'reject')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX treasury_proposal_signatures_unique ON treasury_proposal_signatures (proposal_id, signer_address);
`;
