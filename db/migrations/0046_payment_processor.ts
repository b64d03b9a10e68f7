// The payment processor (issue 34 §3): the organization's customer at the processor, and every
// webhook event taken, by the processor's event id, so a retried or replayed event changes
// nothing twice. `billing_interval` is the interval of the subscription the processor holds.
export const name = '0046_payment_processor';
export const up = `
ALTER TABLE org_billing_accounts
  ADD COLUMN processor_customer_id text,
  ADD COLUMN billing_interval text CHECK (billing_interval IN ('monthly','yearly'));
CREATE UNIQUE INDEX org_billing_accounts_customer ON org_billing_accounts (processor_customer_id) WHERE processor_customer_id IS NOT NULL;

CREATE TABLE processor_events (
  event_id text PRIMARY KEY,
  type text NOT NULL,
  org_id uuid REFERENCES organizations(id) ON DELETE SET NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
`;
