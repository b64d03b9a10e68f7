// The agent's signing switches of the unified sign endpoint (reference AgentResponse
// message_signing_enabled, raw_signing_enabled; POST /v1/agents/{agent_id}/sign). Both are set by
// the organization's owners and admins (PATCH /v1/agents/{id}).
// - message_signing_enabled: EIP-191 personal_sign. On unless turned off: a personal_sign
//   signature is prefixed and can never be a transaction.
// - raw_signing_enabled: signing a client-computed 32-byte digest (intent eip712_digest). Blind
//   signing, so off until a human turns it on (the reference: "OFF by default and human-set").
export const name = '0020_agent_signing_flags';

export const up = `
ALTER TABLE agents
  ADD COLUMN message_signing_enabled boolean NOT NULL DEFAULT true,
  ADD COLUMN raw_signing_enabled boolean NOT NULL DEFAULT false;
`;
