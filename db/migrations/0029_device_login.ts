// Device login for command-line clients (issue 28 §4; spec §4.3, reference facts §4.2, RFC 8628).
// A CLI asks for a device code and a short user code; a signed-in human approves or denies the user
// code; the CLI polls with the device code until it gets its token, once. Both codes are stored
// only as HMAC digests, and so is the e-mail the code was asked for (the table holds no address).
// Spending an approved code is one conditional UPDATE. Wrong user codes are throttled like
// passwords: auth_throttle gains the scope 'device'.
export const name = '0029_device_login';
export const up = `
CREATE TABLE device_logins (
  id uuid PRIMARY KEY,
  device_code_digest text NOT NULL UNIQUE,
  user_code_digest text NOT NULL UNIQUE,
  client_id text NOT NULL,
  email_digest text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'consumed')),
  user_id uuid REFERENCES users(id) ON DELETE CASCADE,
  interval_seconds integer NOT NULL DEFAULT 5,
  last_polled_at timestamptz,
  expires_at timestamptz NOT NULL,
  decided_at timestamptz,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX device_logins_expires_idx ON device_logins (expires_at);
CREATE INDEX device_logins_user_idx ON device_logins (user_id);
ALTER TABLE auth_throttle DROP CONSTRAINT auth_throttle_scope_check;
ALTER TABLE auth_throttle ADD CONSTRAINT auth_throttle_scope_check CHECK (scope IN ('login', 'reauth', 'mfa', 'device'));
`;
