// Platform settings (spec §4.14 admin: GET/PUT/DELETE /v1/admin/settings/{key}): string values an
// operator keeps by key, with who changed them last.
export const name = '0047_platform_settings';
export const up = `
CREATE TABLE platform_settings (
  key text PRIMARY KEY CHECK (key ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$'),
  value text NOT NULL,
  updated_by uuid REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;
