// Billing history (GET /v1/billing/history; reference facts §16): one row per billable request
// that reached its handler, with its final status and what it cost. Written in batches by each api
// process (domain/billing/billing-event-log.ts); read newest first per organization. `endpoint` is
// the route's pattern, never the request's path (a secret's path is a secret's name). Prices are
// micro-dollars like the rest of billing (migration 0045). (0049 belongs to the x402 work.)
export const name = '0050_billing_events';
export const up = `
CREATE TABLE billing_events (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  principal_type text NOT NULL CHECK (principal_type IN ('user','agent')),
  principal_id text NOT NULL,
  method text NOT NULL,
  endpoint text NOT NULL,
  status_code integer NOT NULL CHECK (status_code >= 100 AND status_code <= 599),
  price_micros bigint NOT NULL CHECK (price_micros >= 0),
  paid_with text NOT NULL CHECK (paid_with IN ('quota','credits','x402')),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX billing_events_by_org ON billing_events (org_id, created_at);
`;
