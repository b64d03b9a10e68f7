// Which EIP-712 domains an agent may sign typed data for (reference AgentResponse
// eip712_default_policy, eip712_domain_allowlist; set by humans with PATCH /v1/agents/{id}).
// `allow` (the default) signs every domain; `deny` signs only a domain that an allowlist entry
// matches. An entry names one or more of the domain's fields (name, version, chainId,
// verifyingContract, salt) and matches a domain whose fields are equal to every one it names:
// {verifyingContract, chainId} pins one contract on one chain; {name} trusts an application's
// name wherever it is deployed. Compared normalized: chainId as a number, the address and salt in
// lower case. Raw digests (eip712_digest) carry no domain: raw_signing_enabled alone governs them.
import { forbidden } from '../../errors.ts';
import { ENTRY_FIELDS, type Eip712DomainEntry, type Eip712Policy } from '../../agents/eip712-settings.ts';

/** A typed-data domain, normalized (typed-data.ts). */
export type TypedDomain = { name?: string; version?: string; chainId?: bigint; verifyingContract?: string; salt?: string };

function matches(entry: Eip712DomainEntry, domain: TypedDomain): boolean {
  if (entry.name !== undefined && entry.name !== domain.name) return false;
  if (entry.version !== undefined && entry.version !== domain.version) return false;
  if (entry.chainId !== undefined && (domain.chainId === undefined || BigInt(entry.chainId) !== domain.chainId)) return false;
  if (entry.verifyingContract !== undefined && entry.verifyingContract.toLowerCase() !== domain.verifyingContract) return false;
  if (entry.salt !== undefined && entry.salt.toLowerCase() !== domain.salt) return false;
  return ENTRY_FIELDS.some((f) => entry[f] !== undefined); // an empty entry matches nothing
}

/** 403 naming the policy unless the agent may sign typed data of `domain`. */
export function checkEip712Domain(agent: { eip712_default_policy: Eip712Policy; eip712_domain_allowlist: Eip712DomainEntry[] }, domain: TypedDomain): void {
  if (agent.eip712_default_policy === 'allow') return;
  if (agent.eip712_domain_allowlist.some((e) => matches(e, domain))) return;
  const named = [domain.name && `name "${domain.name.slice(0, 64)}"`, domain.chainId !== undefined && `chainId ${domain.chainId}`,
    domain.verifyingContract && `verifyingContract ${domain.verifyingContract}`].filter(Boolean).join(', ') || 'no fields';
  throw forbidden(`eip712_domain_allowlist: this agent signs typed data only for allowlisted domains (eip712_default_policy deny), and no entry matches this domain (${named}); an owner or admin adds it with PATCH /v1/agents/{agent_id}`);
}
