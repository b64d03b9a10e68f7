// The approval queue (issue 31 §4): single-use quick-decide links mailed to an organization's
// owners and admins (only the SHA-256 digest of the token is stored; 7 days; one per approval and
// human), the agents' approval threshold for Intents transactions, and transactions held for an
// approval (status awaiting_approval, then signed on approval or rejected).
export const name = '0036_approval_queue';
export const up = `
CREATE TABLE approval_quick_links (
  id uuid PRIMARY KEY,
  approval_id uuid NOT NULL REFERENCES approvals(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_digest text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT approval_quick_links_digest_unique UNIQUE (token_digest),
  CONSTRAINT approval_quick_links_one_per_user UNIQUE (approval_id, user_id)
);
CREATE INDEX approval_quick_links_user_idx ON approval_quick_links (user_id);

ALTER TABLE agents ADD COLUMN tx_approval_threshold_eth text;

ALTER TABLE agent_transactions ADD COLUMN approval_id uuid;
ALTER TABLE agent_transactions DROP CONSTRAINT agent_transactions_status_check;
ALTER TABLE agent_transactions ADD CONSTRAINT agent_transactions_status_check
  CHECK (status IN ('pending','signed','sign_only','broadcast','confirmed','failed','simulation_failed','awaiting_approval','rejected'));
ALTER TABLE agent_transactions DROP CONSTRAINT agent_transactions_signed_has_bytes;
ALTER TABLE agent_transactions ADD CONSTRAINT agent_transactions_signed_has_bytes
  CHECK (status IN ('pending','simulation_failed','failed','awaiting_approval','rejected') OR (signed_tx IS NOT NULL AND tx_hash IS NOT NULL));
`;
