// Matching typed-data domains against an agent's EIP-712 allowlist (domain/intents/eip712-domains.ts).
import { checkEip712Domain, type TypedDomain } from '../../domain/intents/signing/eip712-domains.ts';
import type { Eip712DomainEntry } from '../../domain/agents/eip712-settings.ts';
import { Problem } from '../../domain/errors.ts';

const SALT = `0x${'Ab'.repeat(32)}`;
const deny = (...entries: Eip712DomainEntry[]) => ({ eip712_default_policy: 'deny' as const, eip712_domain_allowlist: entries });
const allowed = (agent: ReturnType<typeof deny>, domain: TypedDomain) => {
  try {
    checkEip712Domain(agent, domain);
    return true;
  } catch (e) {
    expect(e).toBeInstanceOf(Problem);
    expect((e as Problem).status).toBe(403);
    return false;
  }
};

test('allow signs every domain, whatever the list says', () => {
  expect(allowed({ eip712_default_policy: 'allow', eip712_domain_allowlist: [] } as never, { name: 'Anything' })).toBe(true);
});

test('deny: every field an entry names must be equal; chain ids compare as numbers, addresses and salts in any case', () => {
  const agent = deny({ chainId: '0x1', verifyingContract: '0x000000000022D473030F116dDEE9F6B43aC78BA3' }, { salt: SALT.toUpperCase().replace('0X', '0x') });
  expect(allowed(agent, { chainId: 1n, verifyingContract: '0x000000000022d473030f116ddee9f6b43ac78ba3', name: 'Permit2' })).toBe(true);
  expect(allowed(agent, { chainId: 10n, verifyingContract: '0x000000000022d473030f116ddee9f6b43ac78ba3' })).toBe(false);
  expect(allowed(agent, { verifyingContract: '0x000000000022d473030f116ddee9f6b43ac78ba3' })).toBe(false); // no chainId in the domain
  expect(allowed(agent, { salt: SALT.toLowerCase() })).toBe(true);
  expect(allowed(agent, {})).toBe(false);
});

test('deny with an empty list, or an entry that names nothing, signs nothing', () => {
  expect(allowed(deny(), { name: 'x' })).toBe(false);
  expect(allowed(deny({}), {})).toBe(false);
  expect(allowed(deny({}), { name: 'x' })).toBe(false);
});
