// Bootstrap, claim and grants of the platform API (issue 35 §3).
// - platform_bootstraps: one per connection. The API writes the plan (the template's spec with
//   every resource's id chosen up front) before it starts the bootstrap workflow, so each step the
//   workflow re-runs after a crash finds its resource by id instead of making a second one. The
//   claim token lives here as a digest; a reissue replaces it (the old link dies).
// - platform_grants: what a user granted an app through a connection. Each grant is enforced as
//   policy rows of the principal ('platform', connection id) that point back at it, so a secret
//   read decides with the one policy decision every caller goes through; revoking a grant deletes
//   its policies (and moves the vaults' policy_version, so no cached read survives it).
// - vaults.platform_locked: set when the user claims what an app provisioned; from then on no
//   platform caller reads a secret value of that vault, whatever it was granted.
export const name = '0056_platform_bootstraps_grants';
export const up = `
ALTER TABLE policies DROP CONSTRAINT policies_principal_type_check;
ALTER TABLE policies ADD CONSTRAINT policies_principal_type_check CHECK (principal_type IN ('user', 'agent', 'platform'));
ALTER TABLE vaults ADD COLUMN platform_locked boolean NOT NULL DEFAULT false;

CREATE TABLE platform_bootstraps (
  connection_id uuid PRIMARY KEY REFERENCES platform_connections(id) ON DELETE CASCADE,
  platform_app_id uuid NOT NULL REFERENCES platform_apps(id) ON DELETE CASCADE,
  template_id uuid REFERENCES platform_templates(id) ON DELETE SET NULL,
  template_version integer NOT NULL,
  plan jsonb NOT NULL,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed')),
  return_to text,
  answered_at timestamptz,
  claim_token_digest text UNIQUE,
  claim_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX platform_bootstraps_app_idx ON platform_bootstraps (platform_app_id);

CREATE TABLE platform_grants (
  id uuid PRIMARY KEY,
  connection_id uuid NOT NULL REFERENCES platform_connections(id) ON DELETE CASCADE,
  vault_ids uuid[] NOT NULL DEFAULT '{}',
  agent_ids uuid[] NOT NULL DEFAULT '{}',
  allowed_paths text[] NOT NULL,
  permissions text[] NOT NULL,
  expires_at timestamptz,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX platform_grants_connection_idx ON platform_grants (connection_id, created_at);

ALTER TABLE policies ADD COLUMN platform_grant_id uuid REFERENCES platform_grants(id) ON DELETE CASCADE;
CREATE INDEX policies_platform_grant_idx ON policies (platform_grant_id) WHERE platform_grant_id IS NOT NULL;
`;
