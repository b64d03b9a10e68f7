// Re-authentication tokens (issue 28 §2; reference facts §4.4): POST /v1/auth/reauth mints a
// single-use `rat_` token (its HMAC digest only is stored), bound to the user and one purpose, valid
// 5 minutes, recording how the user proved themselves (password, TOTP, recovery code; passkey
// later). X-Auth-Confirm accepts it where the password was asked; spending it is one conditional
// UPDATE (unused, this user, this purpose, unexpired).
export const name = '0028_reauth_tokens';
export const up = `
CREATE TABLE reauth_tokens (
  token_digest text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose text NOT NULL,
  method text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reauth_tokens_user_idx ON reauth_tokens (user_id);
`;
