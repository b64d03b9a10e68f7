// Monthly request quotas (issue 34 §1): one row per organization and UTC month. `leased` is the
// budget handed out to api processes (each admits requests from its own lease in memory, so the
// quota decision never waits on the database); `used` is what they reported having served. A
// lease is only granted while leased < the quota, so leased never passes it; budget a process
// did not use is given back (`leased` decreases).
export const name = '0043_request_usage';
export const up = `
CREATE TABLE org_request_usage (
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  month date NOT NULL CHECK (extract(day FROM month) = 1),
  leased bigint NOT NULL DEFAULT 0 CHECK (leased >= 0),
  used bigint NOT NULL DEFAULT 0 CHECK (used >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, month)
);
`;
