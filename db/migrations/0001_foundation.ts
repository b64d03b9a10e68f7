// Foundation schema: organizations, users, credentials, revocation, mail outbox, invitations,
// IP rules and the hash-chained audit log. Plain SQL so constraints and indexes are explicit.
export const name = '0001_foundation';

export const up = `
CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  billing_tier text NOT NULL DEFAULT 'free' CHECK (billing_tier IN ('free','pro','team','business','enterprise')),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id uuid PRIMARY KEY,
  org_id uuid REFERENCES organizations(id) ON DELETE SET NULL,
  role text CHECK (role IN ('owner','admin','member')),
  email text NOT NULL,
  display_name text,
  password_hash text,
  auth_method text NOT NULL DEFAULT 'password',
  email_verified boolean NOT NULL DEFAULT false,
  marketing_emails boolean NOT NULL DEFAULT false,
  require_passkey_for_vaults boolean NOT NULL DEFAULT false,
  failed_logins integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','deleting')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((org_id IS NULL) = (role IS NULL))
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE INDEX users_org_idx ON users (org_id);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  key_prefix text NOT NULL,
  key_digest text NOT NULL UNIQUE,
  scopes jsonb NOT NULL DEFAULT '[]',
  is_active boolean NOT NULL DEFAULT true,
  expires_at timestamptz,
  last_used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id);

CREATE TABLE jwt_signing_keys (
  kid text PRIMARY KEY,
  public_jwk jsonb NOT NULL,
  private_sealed bytea NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Revocation: single tokens by jti, and every token of a principal issued before a moment.
CREATE TABLE revoked_tokens (
  jti uuid PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE TABLE principal_revocations (
  subject text PRIMARY KEY,
  not_before timestamptz NOT NULL
);

CREATE TABLE mail_outbox (
  id uuid PRIMARY KEY,
  to_address text NOT NULL,
  subject text NOT NULL,
  body_text text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','sent','logged','failed')),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX mail_outbox_pending_idx ON mail_outbox (created_at) WHERE status = 'pending';

CREATE TABLE password_resets (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_digest text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE email_changes (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  new_email text NOT NULL,
  code_digest text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE invitations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin','member')),
  token_digest text NOT NULL UNIQUE,
  invited_by uuid REFERENCES users(id) ON DELETE SET NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invitations_org_idx ON invitations (org_id);

CREATE TABLE passkeys (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  credential_id text NOT NULL UNIQUE,
  public_key bytea NOT NULL,
  counter bigint NOT NULL DEFAULT 0,
  name text,
  transports jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX passkeys_user_idx ON passkeys (user_id);

CREATE TABLE ip_rules (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  cidr text NOT NULL,
  rule_type text NOT NULL CHECK (rule_type IN ('allow','block')),
  description text,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ip_rules_org_idx ON ip_rules (org_id);

-- Audit: one hash chain per organization (chain_key = org id, or 'system' for requests
-- with no organization). Each event stores the hash of its predecessor in the same chain.
CREATE TABLE audit_events (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  chain_key text NOT NULL,
  org_id uuid,
  action text NOT NULL,
  actor_type text,
  actor_id text,
  resource_type text,
  resource_id text,
  details jsonb NOT NULL DEFAULT '{}',
  ip_address text,
  request_id text,
  created_at timestamptz NOT NULL,
  prev_hash text NOT NULL,
  integrity_hash text NOT NULL
);
CREATE INDEX audit_events_chain_idx ON audit_events (chain_key, seq);
CREATE INDEX audit_events_org_action_idx ON audit_events (org_id, action, seq);

CREATE TABLE audit_chain_heads (
  chain_key text PRIMARY KEY,
  last_hash text NOT NULL,
  last_seq bigint NOT NULL DEFAULT 0
);
`;
