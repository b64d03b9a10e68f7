// The EIP-712 settings of an agent (reference AgentResponse eip712_default_policy,
// eip712_domain_allowlist; set by humans with PATCH /v1/agents/{id}). What they mean when the agent
// signs typed data is decided in domain/intents/signing/eip712-domains.ts.

export const EIP712_POLICIES = ['allow', 'deny'] as const;
export type Eip712Policy = (typeof EIP712_POLICIES)[number];

/** An allowlist entry as stored (validated on the way in by the route's schema). */
export type Eip712DomainEntry = { name?: string; version?: string; chainId?: number | string; verifyingContract?: string; salt?: string };

/** The fields an entry may name. */
export const ENTRY_FIELDS = ['name', 'version', 'chainId', 'verifyingContract', 'salt'] as const;
