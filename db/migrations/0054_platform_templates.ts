// Bootstrap templates of platform apps (issue 35 §2): what a connection's bootstrap creates for the
// app's user (domain/platform/template-spec.ts checks the spec when it is stored). A template's
// version goes up with every change of its spec, so a bootstrap can say which one it applied.
// Names are unique per app, so an app can refer to its templates by name.
export const name = '0054_platform_templates';
export const up = `
CREATE TABLE platform_templates (
  id uuid PRIMARY KEY,
  platform_app_id uuid NOT NULL REFERENCES platform_apps(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) >= 1 AND char_length(name) <= 100),
  description text NOT NULL DEFAULT '',
  version integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  spec jsonb NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX platform_templates_name_key ON platform_templates (platform_app_id, lower(name));
`;
