// The encrypted core: vaults (each with its own key in the KMS), secrets and their encrypted
// versions, per-vault policies, agents, and the event outbox written in the same transaction
// as the change that caused each event.
export const name = '0002_vaults_secrets_policies_agents';

export const up = `
CREATE TABLE vaults (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  -- 'agent_keys' is the reserved vault __agent-keys: never listed, created or deleted by users.
  kind text NOT NULL DEFAULT 'standard' CHECK (kind IN ('standard','agent_keys')),
  key_backend text NOT NULL CHECK (key_backend IN ('local','pkcs11')),
  key_ref text NOT NULL,
  created_by text NOT NULL,
  created_by_type text NOT NULL CHECK (created_by_type IN ('user','agent')),
  cmek_enabled boolean NOT NULL DEFAULT false,
  cmek_fingerprint text,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX vaults_org_idx ON vaults (org_id) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX vaults_agent_keys_once ON vaults (org_id) WHERE kind = 'agent_keys' AND deleted_at IS NULL;

CREATE TABLE secrets (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  vault_id uuid NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  path text NOT NULL,
  type text NOT NULL,
  current_version integer NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  description text,
  expires_at timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (vault_id, path)
);
CREATE INDEX secrets_vault_path_idx ON secrets (vault_id, path text_pattern_ops) WHERE deleted_at IS NULL;

-- One row per write. The value is AES-256-GCM under a fresh data key; the data key is wrapped by
-- the vault key in the KMS. Both bind organization, vault, path and version as AAD.
CREATE TABLE secret_versions (
  secret_id uuid NOT NULL REFERENCES secrets(id) ON DELETE CASCADE,
  version integer NOT NULL,
  ciphertext bytea NOT NULL,
  wrapped_key bytea NOT NULL,
  key_ref text NOT NULL,
  type text NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  description text,
  expires_at timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz,
  PRIMARY KEY (secret_id, version)
);

CREATE TABLE policies (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  vault_id uuid NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  secret_path_pattern text NOT NULL,
  principal_type text NOT NULL CHECK (principal_type IN ('user','agent')),
  principal_id uuid NOT NULL,
  permissions jsonb NOT NULL,
  conditions jsonb NOT NULL DEFAULT '{}',
  expires_at timestamptz,
  effect text NOT NULL DEFAULT 'allow' CHECK (effect IN ('allow','deny')),
  priority integer NOT NULL DEFAULT 0,
  created_by text NOT NULL,
  created_by_type text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX policies_principal_idx ON policies (principal_type, principal_id, vault_id);
CREATE INDEX policies_vault_idx ON policies (vault_id);

CREATE TABLE agents (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  status text NOT NULL CHECK (status IN ('pending','active','inactive')),
  key_prefix text,
  key_digest text UNIQUE,
  api_key_expires_at timestamptz,
  intents_api_enabled boolean NOT NULL DEFAULT false,
  scopes jsonb,
  vault_ids jsonb,
  tx_max_value_eth text,
  tx_daily_limit_eth text,
  tx_to_allowlist jsonb NOT NULL DEFAULT '[]',
  tx_allowed_chains jsonb NOT NULL DEFAULT '[]',
  tx_max_per_day integer,
  token_ttl_seconds integer,
  created_by uuid,
  human_email text,
  approval_token_digest text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_active_at timestamptz
);
CREATE INDEX agents_org_idx ON agents (org_id);

-- Domain events, written in the transaction of the change; later issues dispatch them.
CREATE TABLE event_outbox (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  org_id uuid NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  dispatched_at timestamptz
);
CREATE INDEX event_outbox_pending_idx ON event_outbox (seq) WHERE dispatched_at IS NULL;
`;
