// Sharing links (spec §2.7, §4.6). The link id a recipient holds is a capability: Postgres keeps
// only its HMAC digest (looked up on open) and a sealed copy (shown back to the creator and the
// recipient in their lists), so a copy of the database opens nothing. The row's own `id` is an
// internal reference for audit records, events and workflows, never part of a link.
export const name = '0013_shares';

export const up = `
CREATE TABLE shares (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  secret_id uuid NOT NULL REFERENCES secrets(id) ON DELETE CASCADE,
  vault_id uuid NOT NULL,
  link_digest text NOT NULL UNIQUE,
  link_sealed bytea NOT NULL,
  -- The first 8 hex digits of the link id (32 of its 122 random bits): enough to tell shares apart
  -- in audit records and mails, useless for opening one.
  link_prefix text NOT NULL,
  created_by uuid NOT NULL,
  created_by_type text NOT NULL CHECK (created_by_type IN ('user', 'agent')),
  -- Where the creator shared from: the creator's policy conditions are evaluated with it at each open.
  created_ip text NOT NULL,
  recipient_type text NOT NULL CHECK (recipient_type IN ('creator', 'user', 'agent', 'external_email', 'anyone_with_link')),
  -- The principal a creator/user/agent share is addressed to (creator: the agent's human).
  recipient_principal_type text CHECK (recipient_principal_type IN ('user', 'agent')),
  recipient_id uuid,
  recipient_email text,
  expires_at timestamptz NOT NULL,
  max_access_count integer CHECK (max_access_count > 0),
  access_count integer NOT NULL DEFAULT 0,
  passphrase_hash text,
  ip_allowlist jsonb NOT NULL DEFAULT '[]',
  failed_passphrase_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  accepted_at timestamptz,
  -- The account that accepted an external_email share (its verified address matched).
  accepted_by uuid,
  declined_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (max_access_count IS NULL OR access_count <= max_access_count),
  CHECK ((recipient_principal_type IS NULL) = (recipient_id IS NULL))
);
CREATE INDEX shares_creator_idx ON shares (created_by, created_at) WHERE revoked_at IS NULL;
CREATE INDEX shares_recipient_idx ON shares (recipient_id) WHERE revoked_at IS NULL;
CREATE INDEX shares_recipient_email_idx ON shares (lower(recipient_email)) WHERE recipient_type = 'external_email' AND revoked_at IS NULL;

-- One row per successful open: the creator's access mails are built from the rows not yet
-- notified, so a burst of opens becomes one mail and a crash before the mail loses none.
CREATE TABLE share_accesses (
  id uuid PRIMARY KEY,
  share_id uuid NOT NULL REFERENCES shares(id) ON DELETE CASCADE,
  org_id uuid NOT NULL,
  accessed_at timestamptz NOT NULL DEFAULT now(),
  client_ip text NOT NULL,
  notified_at timestamptz
);
CREATE INDEX share_accesses_unnotified_idx ON share_accesses (share_id, accessed_at) WHERE notified_at IS NULL;
`;
