// Execution bindings (issue 14 §2; reference `/v1/agents/{agent_id}/bindings*`, `/execute`,
// `/executions`): an agent calls an outside HTTP API through a binding whose credential it never
// sees. Humans configure a binding (base URL, allowed methods and paths, static headers, how the
// credential is injected, guardrails); the agent names it and a path, and the service adds the
// credential, sends through the SSRF-safe client and redacts the credential from the answer.
//
// - agents.execution_intents_enabled: the agent may use POST …/execute (humans set it).
// - agents.execution_guardrails: limits over every binding of the agent (allowed_methods,
//   max_body_bytes, max_requests_per_minute); a binding's own guardrails apply as well.
// - execution_bindings: the credential is either `inline` (encrypted as a secret of the
//   organization's reserved `__agent-keys` vault at inline_path, one version per credential; the
//   row names the version, never the value) or `vault_ref` (a live pointer to a secret the agent
//   reads with its own permissions at execution time), or absent.
// - execution_events: one row per execution or refused attempt: a summary of the request
//   (method, canonical path, query and header names, body size) and of the answer (status, size,
//   content type). Never a credential, a header value or a body.
// - execution_rate_windows: per-minute counters of max_requests_per_minute, taken by one
//   conditional upsert (the same count on every api replica and worker).
export const name = '0022_execution_bindings';

export const up = `
ALTER TABLE agents
  ADD COLUMN execution_intents_enabled boolean NOT NULL DEFAULT false,
  ADD COLUMN execution_guardrails jsonb NOT NULL DEFAULT '{}'::jsonb;

CREATE TABLE execution_bindings (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  name text NOT NULL,
  binding_type text NOT NULL CHECK (binding_type IN ('http')),
  config jsonb NOT NULL,
  guardrails jsonb NOT NULL DEFAULT '{}'::jsonb,
  is_active boolean NOT NULL DEFAULT true,
  credential_source_type text CHECK (credential_source_type IN ('inline', 'vault_ref')),
  -- vault_ref: the vault and path of the secret the agent reads at execution time.
  credential_vault_id uuid,
  credential_path text,
  -- inline: where the encrypted credential is kept in the reserved vault.
  inline_vault_id uuid,
  inline_path text,
  inline_version integer,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT execution_bindings_name_unique UNIQUE (agent_id, name),
  CONSTRAINT execution_bindings_credential_shape CHECK (
    (credential_source_type IS NULL AND credential_vault_id IS NULL AND credential_path IS NULL AND inline_vault_id IS NULL)
    OR (credential_source_type = 'vault_ref' AND credential_vault_id IS NOT NULL AND credential_path IS NOT NULL AND inline_vault_id IS NULL)
    OR (credential_source_type = 'inline' AND credential_vault_id IS NULL AND inline_vault_id IS NOT NULL AND inline_path IS NOT NULL AND inline_version IS NOT NULL))
);
CREATE INDEX execution_bindings_org_idx ON execution_bindings (org_id, agent_id, created_at);

CREATE TABLE execution_events (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  -- No foreign key: the history outlives a deleted binding.
  binding_id uuid NOT NULL,
  binding_name text NOT NULL,
  intent_type text NOT NULL,
  execution_mode text NOT NULL DEFAULT 'vault',
  status text NOT NULL CHECK (status IN ('success', 'failed', 'denied')),
  request_summary jsonb,
  result_summary jsonb,
  error_message text,
  duration_ms integer NOT NULL DEFAULT 0,
  cost_cents integer,
  redactions_applied integer NOT NULL DEFAULT 0,
  -- Who asked: agent:<id>, or the automation run whose step executed.
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX execution_events_agent_idx ON execution_events (org_id, agent_id, created_at DESC, id);

CREATE TABLE execution_rate_windows (
  subject text NOT NULL,
  window_start timestamptz NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (subject, window_start)
);
`;
