// Self-enrollment requests of agents: public, pending until a human approves them into an
// organization. The approval token is stored only as a digest.
export const name = '0003_agent_enrollments';

export const up = `
CREATE TABLE agent_enrollments (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  human_email text,
  token_digest text NOT NULL UNIQUE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','approved','denied')),
  client_ip text,
  expires_at timestamptz NOT NULL,
  agent_id uuid,
  decided_by uuid,
  decided_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_enrollments_pending_idx ON agent_enrollments (created_at) WHERE status = 'pending';
`;
