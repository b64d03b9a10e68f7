// Mobile devices for step-up (issue 28 §6; spec §4.3b): a user's phone holds a key — a PEM public
// key it registered, or a WebAuthn platform credential — and answers a challenge bound to one
// action and target (e.g. deciding one approval) by signing it, for a `rat_` token usable for that
// action and target only. Challenges keep only an HMAC digest of their nonce and are deleted when
// answered, so each is good once. reauth_tokens.target_id binds such a token to its target.
export const name = '0031_mobile_devices';
export const up = `
CREATE TABLE mobile_devices (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  platform text NOT NULL CHECK (platform IN ('ios', 'android')),
  public_key_pem text,
  credential_id text UNIQUE,
  credential_public_key bytea,
  sign_count bigint NOT NULL DEFAULT 0,
  attestation_verified boolean NOT NULL DEFAULT false,
  push_token text,
  push_platform text CHECK (push_platform IN ('apns', 'fcm')),
  last_used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((public_key_pem IS NULL) <> (credential_id IS NULL) AND (credential_id IS NULL) = (credential_public_key IS NULL))
);
CREATE INDEX mobile_devices_user_idx ON mobile_devices (user_id);

CREATE TABLE device_challenges (
  nonce_digest text PRIMARY KEY,
  device_id uuid NOT NULL REFERENCES mobile_devices(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose text NOT NULL,
  target_id text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX device_challenges_device_idx ON device_challenges (device_id);
CREATE INDEX device_challenges_expires_idx ON device_challenges (expires_at);

ALTER TABLE reauth_tokens ADD COLUMN target_id text;
`;
