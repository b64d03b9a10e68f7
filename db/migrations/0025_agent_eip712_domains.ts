// Which EIP-712 domains an agent signs typed data for (reference AgentResponse
// eip712_default_policy, eip712_domain_allowlist; domain/intents/eip712-domains.ts). `allow`, the
// default, keeps what agents did before: every domain. Humans set both with PATCH /v1/agents/{id}.
export const name = '0025_agent_eip712_domains';
export const up = `
ALTER TABLE agents
  ADD COLUMN eip712_default_policy text NOT NULL DEFAULT 'allow' CHECK (eip712_default_policy IN ('allow', 'deny')),
  ADD COLUMN eip712_domain_allowlist jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(eip712_domain_allowlist) = 'array');
`;
