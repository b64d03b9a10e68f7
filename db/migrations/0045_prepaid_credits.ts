// Prepaid credits (issue 34 §2). Amounts are micro-dollars (1 USD = 1,000,000): a secret read
// costs $0.001 = 1,000, below a cent.
// - credit_lots: what was bought, and what is left of it. Spent first-in first-out (earliest
//   expiry first); a lot expires 12 months after purchase. external_ref (the processor's payment)
//   makes a top-up land once however often it is reported.
// - credit_ledger: append-only, one row per change (top-up, usage, expiry), with the balance after.
// - org_billing_accounts: per organization, how a request over the quota is paid (credits or
//   x402), and the credit budget leased to api processes (they spend it in memory; a lease is
//   granted only while the balance covers every lease out, so nobody spends below zero).
// - org_request_usage.paid / paid_micros: requests over the quota paid with credits, and their cost.
export const name = '0045_prepaid_credits';
export const up = `
CREATE TABLE org_billing_accounts (
  org_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  overage_method text NOT NULL DEFAULT 'credits' CHECK (overage_method IN ('credits','x402')),
  credit_leased_micros bigint NOT NULL DEFAULT 0 CHECK (credit_leased_micros >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE credit_lots (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  amount_micros bigint NOT NULL CHECK (amount_micros > 0),
  remaining_micros bigint NOT NULL CHECK (remaining_micros >= 0),
  expires_at timestamptz NOT NULL,
  external_ref text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (remaining_micros <= amount_micros)
);
CREATE UNIQUE INDEX credit_lots_external_ref ON credit_lots (org_id, external_ref) WHERE external_ref IS NOT NULL;
CREATE INDEX credit_lots_spendable ON credit_lots (org_id, expires_at, created_at) WHERE remaining_micros > 0;

CREATE TABLE credit_ledger (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('topup','usage','expiry')),
  amount_micros bigint NOT NULL,
  balance_after_micros bigint NOT NULL CHECK (balance_after_micros >= 0),
  description text NOT NULL,
  lot_id uuid REFERENCES credit_lots(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_ledger_by_org ON credit_ledger (org_id, created_at, id);

ALTER TABLE org_request_usage
  ADD COLUMN paid bigint NOT NULL DEFAULT 0 CHECK (paid >= 0),
  ADD COLUMN paid_micros bigint NOT NULL DEFAULT 0 CHECK (paid_micros >= 0);
`;
