// Agent scopes (§2.5a): what is stored from input, and what an agent's token carries.
import fc from 'fast-check';
import { explicitScopes, tokenScopes } from '../../domain/agents/agent-scopes.ts';

describe('explicitScopes', () => {
  test('null and [] both mean "no explicit scopes"', () => {
    expect(explicitScopes(null)).toBeNull();
    expect(explicitScopes([])).toBeNull();
  });

  test('a non-empty list is kept as given', () => {
    fc.assert(fc.property(fc.array(fc.string({ minLength: 1 }), { minLength: 1 }), (list) => {
      expect(explicitScopes(list)).toEqual(list);
    }));
  });
});

describe('tokenScopes', () => {
  const v1 = '11111111-1111-4111-8111-111111111111';
  const v2 = '22222222-2222-4222-8222-222222222222';

  test('explicit scopes win over policies', () => {
    expect(tokenScopes(['a/*'], ['b/*'], [v1], [])).toEqual({ scopes: ['a/*'], source: 'explicit', vaultIds: [v1] });
  });

  test('without explicit scopes (null or a stored []) they come from the policies, each once', () => {
    for (const none of [null, []]) {
      expect(tokenScopes(none, ['b/*', 'c/**', 'b/*'], [v1, v1], [])).toEqual({ scopes: ['b/*', 'c/**'], source: 'policies', vaultIds: [v1] });
    }
  });

  test('with neither, the default is *', () => {
    expect(tokenScopes(null, [], [], [v2])).toEqual({ scopes: ['*'], source: 'default', vaultIds: [v2] });
  });

  test('vault ids: those of policies first, then those the agent created, each once', () => {
    expect(tokenScopes(null, ['x'], [v2, v1], [v1, v2]).vaultIds).toEqual([v2, v1]);
  });
});
