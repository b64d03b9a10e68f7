// TOTP second factor (issue 28 §1): the account's authenticator secret (sealed under a root-derived
// key, bound to the user), the last time step accepted (each step is good once), one-time recovery
// codes (HMAC digests only) and the single-use tokens that carry a password login to its second step.
// Wrong codes are throttled per account like passwords: auth_throttle gains the scope 'mfa'.
export const name = '0027_totp';
export const up = `
CREATE TABLE user_totp (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  secret_sealed bytea NOT NULL,
  enabled_at timestamptz,
  last_time_step bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE mfa_recovery_codes (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_digest text NOT NULL UNIQUE,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mfa_recovery_codes_user_idx ON mfa_recovery_codes (user_id);
CREATE TABLE mfa_login_tokens (
  token_digest text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  first_factor text NOT NULL CHECK (first_factor IN ('password', 'google')),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mfa_login_tokens_user_idx ON mfa_login_tokens (user_id);
ALTER TABLE auth_throttle DROP CONSTRAINT auth_throttle_scope_check;
ALTER TABLE auth_throttle ADD CONSTRAINT auth_throttle_scope_check CHECK (scope IN ('login', 'reauth', 'mfa'));
`;
