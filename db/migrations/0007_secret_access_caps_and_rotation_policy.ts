// Secrets may carry a read cap (`max_access_count`): each successful read counts once, in one
// conditional UPDATE, and reads past the cap answer 410. `rotation_policy` is stored as given
// (reference PutSecretRequest), for the rotation features that act on it.
export const name = '0007_secret_access_caps_and_rotation_policy';

export const up = `
ALTER TABLE secrets
  ADD COLUMN max_access_count integer CHECK (max_access_count IS NULL OR max_access_count > 0),
  ADD COLUMN access_count integer NOT NULL DEFAULT 0,
  ADD COLUMN rotation_policy jsonb;
`;
