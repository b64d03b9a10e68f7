// Passkey challenges (issue 28 §3; reference facts §4.3): each WebAuthn ceremony (register, sign-in,
// re-auth, vault unlock) starts with a random challenge the authenticator signs over. Only its HMAC digest is
// kept, with what it is for and (except for sign-in, which starts without an account) whose it is,
// for 5 minutes. Completing a ceremony deletes the row in one statement, so a challenge is good once.
export const name = '0030_passkey_challenges';
export const up = `
CREATE TABLE passkey_challenges (
  challenge_digest text PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('register', 'assert', 'reauth', 'vault')),
  user_id uuid REFERENCES users(id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX passkey_challenges_expires_idx ON passkey_challenges (expires_at);
`;
