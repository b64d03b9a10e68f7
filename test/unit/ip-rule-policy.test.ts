// Which IP rules bind which caller (`applies_to`) and what they decide for an address.
import fc from 'fast-check';
import { bindsPrincipal, ipDecision, rulesBinding, APPLIES_TO, type RuleSpec } from '../../domain/org/ip-rule-policy.ts';

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));

describe('bindsPrincipal', () => {
  test('all binds everyone; users only humans; agents only agents', () => {
    expect(bindsPrincipal('all', 'user')).toBe(true);
    expect(bindsPrincipal('all', 'agent')).toBe(true);
    expect(bindsPrincipal('users', 'user')).toBe(true);
    expect(bindsPrincipal('users', 'agent')).toBe(false);
    expect(bindsPrincipal('agents', 'agent')).toBe(true);
    expect(bindsPrincipal('agents', 'user')).toBe(false);
  });
});

describe('rulesBinding + ipDecision', () => {
  test('a rule decides for a caller exactly when it binds that caller', () => {
    fc.assert(fc.property(ipv4, fc.constantFrom(...APPLIES_TO), fc.constantFrom('user' as const, 'agent' as const), (ip, appliesTo, type) => {
      const rules: RuleSpec[] = [{ cidr: `${ip}/32`, rule_type: 'block', applies_to: appliesTo }];
      expect(ipDecision(rulesBinding(rules, type), ip)).toBe(bindsPrincipal(appliesTo, type) ? 'block' : 'allow');
    }));
  });

  test('an allow list binds only the callers it applies to', () => {
    const rules: RuleSpec[] = [{ cidr: '198.51.100.0/24', rule_type: 'allow', applies_to: 'agents' }];
    expect(ipDecision(rulesBinding(rules, 'agent'), '192.0.2.1')).toBe('not_allowed');
    expect(ipDecision(rulesBinding(rules, 'agent'), '198.51.100.7')).toBe('allow');
    expect(ipDecision(rulesBinding(rules, 'user'), '192.0.2.1')).toBe('allow');
  });

  test('block wins over allow; unparsable stored CIDRs are skipped', () => {
    const rules: RuleSpec[] = [
      { cidr: '198.51.100.0/24', rule_type: 'allow', applies_to: 'all' },
      { cidr: '198.51.100.128/25', rule_type: 'block', applies_to: 'users' },
      { cidr: 'garbage', rule_type: 'block', applies_to: 'all' },
    ];
    expect(ipDecision(rulesBinding(rules, 'user'), '198.51.100.200')).toBe('block');
    expect(ipDecision(rulesBinding(rules, 'agent'), '198.51.100.200')).toBe('allow');
    expect(ipDecision(rulesBinding(rules, 'user'), '198.51.100.1')).toBe('allow');
  });
});
