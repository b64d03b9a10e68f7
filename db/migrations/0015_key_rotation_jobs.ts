// Key rotation jobs (issue 12): long passes over every secret version of a vault, each run by one
// Temporal workflow that moves its row. `vault_key`: every data key is re-wrapped under a new vault
// key, then the old keys are retired. One open job per vault at a time.
export const name = '0015_key_rotation_jobs';

export const up = `
CREATE TABLE key_rotation_jobs (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  vault_id uuid NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('vault_key', 'cmek')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  -- vault_key: the vault's new key (a KMS handle, never key material in the clear); versions under
  -- any other ref are re-wrapped, and old_key_refs are destroyed once none is left.
  new_key_ref text,
  old_key_refs text[] NOT NULL DEFAULT '{}',
  total_secrets integer NOT NULL DEFAULT 0,
  processed integer NOT NULL DEFAULT 0,
  error text,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz
);
CREATE UNIQUE INDEX key_rotation_jobs_one_open_idx ON key_rotation_jobs (vault_id) WHERE status IN ('pending', 'running');
CREATE INDEX key_rotation_jobs_open_idx ON key_rotation_jobs (created_at) WHERE status IN ('pending', 'running');
`;
