// A platform app's connections to users (issue 35 §2): POST /v1/platform/users/upsert creates or
// finds a user and the connection between them. `external_subject` is the `sub` of the app's OIDC
// token (its issuer is the app's one configured issuer), unique per app. A user is connected to an
// app at most once; a disconnected connection stays (the history, and the user's consent is needed
// to connect again).
export const name = '0055_platform_connections';
export const up = `
CREATE TABLE platform_connections (
  id uuid PRIMARY KEY,
  platform_app_id uuid NOT NULL REFERENCES platform_apps(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  external_subject text,
  status text NOT NULL DEFAULT 'connected' CHECK (status IN ('connected', 'claimed', 'disconnected')),
  created_at timestamptz NOT NULL DEFAULT now(),
  claimed_at timestamptz,
  disconnected_at timestamptz
);
CREATE UNIQUE INDEX platform_connections_user_key ON platform_connections (platform_app_id, user_id);
CREATE UNIQUE INDEX platform_connections_subject_key ON platform_connections (platform_app_id, external_subject) WHERE external_subject IS NOT NULL;
CREATE INDEX platform_connections_user_idx ON platform_connections (user_id);
`;
