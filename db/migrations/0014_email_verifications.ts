// Verifying the e-mail of a self-service signup (POST /v1/auth/verify-email): the token mailed at
// signup is kept only as its HMAC digest. A verified address is what lets an account see the
// external_email shares sent to it.
export const name = '0014_email_verifications';

export const up = `
CREATE TABLE email_verifications (
  token_digest text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- The address the token was mailed to: a token does not verify an address changed since.
  email text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_verifications_user_idx ON email_verifications (user_id);
`;
