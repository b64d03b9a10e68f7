// Operator overrides of an organization's plan limits (issue 34 §5; reference adminUpdateOrgLimits):
// its monthly request quota (`request_quota`, the reference's free_tier_override), sponsorship (no
// request quota at all) and its caps on vaults, secrets, agents and automations. NULL: the tier's
// own figure. An override with an `expires_at` in the past is no longer in force (the row stays,
// as a record of what was granted, until it is replaced).
export const name = '0044_org_limit_overrides';
export const up = `
CREATE TABLE org_limit_overrides (
  org_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  request_quota bigint CHECK (request_quota >= 0),
  is_sponsored boolean NOT NULL DEFAULT false,
  max_vaults integer CHECK (max_vaults >= 0),
  max_secrets integer CHECK (max_secrets >= 0),
  max_agents integer CHECK (max_agents >= 0),
  max_automations integer CHECK (max_automations >= 0),
  expires_at timestamptz,
  updated_by uuid REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;
