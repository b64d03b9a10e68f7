// Organization webhooks (spec §2.11, §4.17, §6) and their delivery history. The outbox gains a
// trigger that wakes the dispatcher (domain/events/dispatcher.ts) the moment an event commits:
// NOTIFY inside a transaction is delivered only at commit, and never for a rolled-back change.
export const name = '0010_webhooks';

export const up = `
CREATE TABLE webhooks (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  url text NOT NULL,
  events text[] NOT NULL,
  description text,
  is_active boolean NOT NULL DEFAULT true,
  -- The HMAC signing secret, sealed under a root-derived key with the webhook id as associated
  -- data (domain/webhooks/webhook-secret.ts): the worker needs it back to sign every delivery.
  secret_sealed bytea NOT NULL,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_org_idx ON webhooks (org_id, created_at);

-- One row per (event, webhook): its id is derived from both (a digest of the pair), so the
-- dispatcher can insert it again after a crash and the delivery workflow id never changes.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  org_id uuid NOT NULL,
  event_id uuid NOT NULL REFERENCES event_outbox(id) ON DELETE CASCADE,
  event_type text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
  -- 1 for the dispatcher's delivery, +1 for each manual retry; part of the workflow id.
  run integer NOT NULL DEFAULT 1,
  attempt_count integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  queued_at timestamptz NOT NULL DEFAULT now(),
  -- Set once the run's workflow has been started; the sweeper starts runs still NULL.
  workflow_started_at timestamptz,
  completed_at timestamptz,
  UNIQUE (event_id, webhook_id)
);
CREATE INDEX webhook_deliveries_history_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_unstarted_idx ON webhook_deliveries (queued_at) WHERE status = 'pending' AND workflow_started_at IS NULL;

-- Every attempt, written before the request leaves (so an attempt cut short by a crash is still
-- on record) and completed with its outcome.
CREATE TABLE webhook_delivery_attempts (
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  run integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  duration_ms integer,
  status_code integer,
  response_excerpt text,
  error text,
  PRIMARY KEY (delivery_id, attempt)
);

CREATE FUNCTION event_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('event_outbox', '');
  RETURN NULL;
END $$;
CREATE TRIGGER event_outbox_notify AFTER INSERT ON event_outbox
  FOR EACH STATEMENT EXECUTE FUNCTION event_outbox_notify();
`;
