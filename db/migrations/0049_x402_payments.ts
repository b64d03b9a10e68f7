// x402 pay-per-request (issue 34 §4): the platform's payment settings (one row, set by operators
// through /v1/admin/x402), and every payment proof a request presented. A proof's digest is its
// key, so a proof pays for one request only; a settlement that failed stays here until the
// `x402-settle:<digest>` workflow lands it.
export const name = '0049_x402_payments';
export const up = `
CREATE TABLE x402_config (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  enabled boolean NOT NULL DEFAULT false,
  pay_to text,
  network text NOT NULL DEFAULT 'eip155:8453',
  asset text NOT NULL DEFAULT '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  asset_name text NOT NULL DEFAULT 'USD Coin',
  asset_version text NOT NULL DEFAULT '2',
  asset_decimals integer NOT NULL DEFAULT 6 CHECK (asset_decimals >= 0 AND asset_decimals <= 18),
  facilitator_url text,
  max_timeout_seconds integer NOT NULL DEFAULT 60 CHECK (max_timeout_seconds >= 10 AND max_timeout_seconds <= 3600),
  updated_by uuid REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE x402_payments (
  digest text PRIMARY KEY,
  org_id uuid REFERENCES organizations(id) ON DELETE SET NULL,
  route text NOT NULL,
  amount text NOT NULL,
  network text NOT NULL,
  payer text,
  status text NOT NULL DEFAULT 'verifying' CHECK (status IN ('verifying', 'settled', 'settle_failed')),
  payment jsonb NOT NULL,
  requirements jsonb NOT NULL,
  transaction text,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz
);
CREATE INDEX x402_payments_status_idx ON x402_payments (status, created_at);
`;
