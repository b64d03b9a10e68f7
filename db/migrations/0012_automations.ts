// Automations (spec §2.12–2.14, §4.16), their runs (§2.13, §3), the approvals a run can wait on
// (§4.3c) and per-agent memory for the memory_* steps. Postgres holds every record and status;
// each run is one Temporal workflow (`automation-run:<run id>`) that moves its row through guarded
// updates, and a cron automation is one Temporal Schedule.
export const name = '0012_automations';

export const up = `
CREATE TABLE automations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  name text NOT NULL,
  trigger_type text NOT NULL CHECK (trigger_type IN ('cron', 'event', 'webhook', 'manual')),
  cron_expr text,
  timezone text NOT NULL DEFAULT 'UTC',
  event_filter jsonb,
  -- event_filter.event_type, kept apart so the event subscriber finds its automations by index.
  event_type text,
  -- As the caller sent it (a bare array or {steps: [...]}); validated at every write.
  workflow_spec jsonb NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  -- SHA-256 of the whk_ token of a webhook automation; the token itself is never stored.
  webhook_token_hash bytea,
  -- Bumped by every change; schedule_version is the version the Temporal Schedule was last synced
  -- to, so the worker's reconciler finds cron automations whose schedule is behind.
  version integer NOT NULL DEFAULT 1,
  schedule_version integer NOT NULL DEFAULT 0,
  -- From the Temporal Schedule (its next action time), refreshed at every sync and every tick.
  next_run_at timestamptz,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX automations_org_idx ON automations (org_id, created_at);
CREATE INDEX automations_event_idx ON automations (org_id, event_type) WHERE trigger_type = 'event' AND is_active;
CREATE INDEX automations_schedule_sync_idx ON automations (id) WHERE schedule_version <> version;

CREATE TABLE automation_runs (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  automation_id uuid NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
  agent_id uuid NOT NULL,
  status text NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'success', 'failed', 'timed_out', 'cancelled', 'awaiting_approval')),
  trigger_source text NOT NULL CHECK (trigger_source IN ('cron', 'event', 'webhook', 'manual')),
  -- What the run started from: {trigger, webhook_payload, input, _event}; during the run the
  -- workflow keeps step outputs in memory and writes them (secret values redacted) when it ends.
  context jsonb NOT NULL DEFAULT '{}',
  step_results jsonb,
  error text,
  tokens_used integer NOT NULL DEFAULT 0,
  cost_cents integer NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX automation_runs_automation_idx ON automation_runs (automation_id, started_at DESC);
CREATE INDEX automation_runs_open_idx ON automation_runs (started_at) WHERE status IN ('running', 'awaiting_approval');

-- Runs started per organization and calendar month (UTC): one conditional upsert per run keeps
-- the tier's monthly cap exact under concurrency without counting the runs table.
CREATE TABLE automation_run_usage (
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  month date NOT NULL,
  runs integer NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, month)
);

CREATE TABLE approvals (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  -- The human the request is addressed to (the automation's creator, else the agent's).
  user_id uuid,
  agent_id uuid,
  run_id uuid REFERENCES automation_runs(id) ON DELETE CASCADE,
  action text NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  risk_tier smallint NOT NULL DEFAULT 1 CHECK (risk_tier BETWEEN 1 AND 3),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
  summary jsonb NOT NULL DEFAULT '{}',
  reason text,
  decision_reason text,
  decided_by uuid,
  decided_at timestamptz,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX approvals_org_idx ON approvals (org_id, created_at DESC);
CREATE INDEX approvals_pending_idx ON approvals (org_id) WHERE status = 'pending';

-- Per-agent memory (memory_get/put/search steps and /v1/agents/{id}/memory). Search ranks by
-- Postgres full-text search over the key and the value's text.
CREATE TABLE agent_memory (
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  org_id uuid NOT NULL,
  namespace text NOT NULL,
  key text NOT NULL,
  value jsonb NOT NULL,
  tier text NOT NULL DEFAULT 'durable' CHECK (tier IN ('scratch', 'durable', 'semantic')),
  expires_at timestamptz,
  search_text tsvector GENERATED ALWAYS AS (to_tsvector('simple', key || ' ' || (value #>> '{}'))) STORED,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, namespace, key)
);
CREATE INDEX agent_memory_search_idx ON agent_memory USING gin (search_text);
CREATE INDEX agent_memory_expiry_idx ON agent_memory (expires_at) WHERE expires_at IS NOT NULL;
`;
