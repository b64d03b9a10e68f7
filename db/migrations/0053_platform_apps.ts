// The platform API (issue 35 §1): apps an organization registers to provision their own users with
// a vault and an agent. Each app authenticates with a `plt_` key kept only as its HMAC digest
// (domain/crypto/opaque-tokens.ts); a rotation may leave the previous key valid until
// previous_key_expires_at (the overlap the caller chose), never longer. Slugs name the app in claim
// links, so they are unique across the platform, whatever their case.
export const name = '0053_platform_apps';
export const up = `
CREATE TABLE platform_apps (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) >= 1 AND char_length(name) <= 100),
  slug text NOT NULL CHECK (slug ~ '^[a-zA-Z0-9_-]{3,64}$'),
  description text NOT NULL DEFAULT '',
  logo_url text,
  oidc_jwks_url text,
  oidc_issuer text,
  oidc_audience text,
  redirect_uris text[] NOT NULL DEFAULT '{}',
  webhook_url text,
  is_active boolean NOT NULL DEFAULT true,
  billing_model text NOT NULL DEFAULT 'platform_pays' CHECK (billing_model IN ('platform_pays', 'user_pays', 'hybrid')),
  auth_mode text NOT NULL DEFAULT 'silent' CHECK (auth_mode IN ('silent', 'user_signin', 'configurable')),
  max_connected_users integer CHECK (max_connected_users IS NULL OR max_connected_users >= 0),
  api_key_prefix text NOT NULL,
  api_key_digest text NOT NULL UNIQUE,
  api_key_expires_at timestamptz,
  api_key_rotated_at timestamptz,
  previous_key_digest text UNIQUE,
  previous_key_expires_at timestamptz,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX platform_apps_slug_key ON platform_apps (lower(slug));
CREATE INDEX platform_apps_org_idx ON platform_apps (org_id, created_at);
`;
