// Issue 8 §6: the account lockout (users.failed_logins / locked_until) is replaced by a throttle
// per account AND source, so nobody can lock someone else out by knowing their e-mail.
// Issue 8 §5: a principal-wide revocation (password change) may spare the one token that asked
// for it, so the caller's session survives while every other one ends.
export const name = '0008_auth_throttle_and_kept_session';

export const up = `
-- Failed password attempts, one row per (what, whose, from where). Rows are written only on a
-- failure and removed on a success, so parallel correct logins never slow each other down.
--   scope   'login': password login; 'reauth': the current password on an authenticated request
--   subject login: HMAC of the lower-cased e-mail (the same for known and unknown addresses);
--           reauth: the user id
--   source  the client address, or '*' for a limit over every address
CREATE TABLE auth_throttle (
  scope text NOT NULL CHECK (scope IN ('login', 'reauth')),
  subject text NOT NULL,
  source text NOT NULL,
  failures integer NOT NULL CHECK (failures > 0),
  last_failure_at timestamptz NOT NULL,
  PRIMARY KEY (scope, subject, source)
);
CREATE INDEX auth_throttle_last_failure_idx ON auth_throttle (last_failure_at);

-- The token a principal-wide cut-off spares (the one that changed the password), if any.
ALTER TABLE principal_revocations ADD COLUMN exempt_jti uuid;
`;
