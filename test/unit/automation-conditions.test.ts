// Step conditions (domain/automations/engine/conditions.ts): the operators of the spec, bare
// values, and the split-before-substitute rule, with properties against JS semantics.
import fc from 'fast-check';
import { evaluateCondition, shouldRunStep, splitExpression } from '../../domain/automations/engine/conditions.ts';
import type { TemplateScope } from '../../domain/automations/spec/step-types.ts';

const scope: TemplateScope = {
  steps: { 0: { status: 200, body: { price: 3120.5, name: 'Ether' } }, check: { ok: true, text: 'all systems operational' } },
  trigger: { sentiment: -0.7, label: 'negative', empty: '', zero: 0, nil: null, injected: 'x == x', quoted: '"hi"' },
};
const ev = (e: string, s: TemplateScope = scope) => evaluateCondition(e, s);

describe('operators', () => {
  test('== and != compare text', () => {
    expect(ev('{{steps.0.status}} == 200')).toBe(true);
    expect(ev('{{steps.0.status}} != 200')).toBe(false);
    expect(ev('{{trigger.label}} == negative')).toBe(true);
    expect(ev('{{trigger.label}} == Negative')).toBe(false);
    expect(ev("{{trigger.label}} == 'negative'")).toBe(true);
    expect(ev('"negative" == {{trigger.label}}')).toBe(true);
    expect(ev('{{steps.0.status}} == 200.0')).toBe(false); // text, not numbers
    expect(ev('{{trigger.quoted}} == hi')).toBe(true); // one pair of quotes stripped after substitution
    expect(ev('{{trigger.missing}} == ""')).toBe(true);
  });

  test('contains is a substring test', () => {
    expect(ev('{{steps.check.text}} contains operational')).toBe(true);
    expect(ev('{{steps.check.text}} contains degraded')).toBe(false);
    expect(ev("{{steps.check.text}} contains 'systems op'")).toBe(true);
  });

  test('>, <, >=, <= are numeric', () => {
    expect(ev('{{steps.0.body.price}} > 3000')).toBe(true);
    expect(ev('{{steps.0.body.price}} < 3000')).toBe(false);
    expect(ev('{{trigger.sentiment}} < -0.5')).toBe(true);
    expect(ev('{{trigger.sentiment}} >= -0.7')).toBe(true);
    expect(ev('{{trigger.sentiment}} <= -0.8')).toBe(false);
    expect(ev('10 > 9')).toBe(true); // not text order
    expect(ev("'10' > \"9\"")).toBe(true);
  });

  test('numeric operators are false when a side is not a finite number', () => {
    for (const e of ['abc > 1', '1 < abc', '{{trigger.missing}} < 5', ' >= 0', '0x10 > 1', 'Infinity > 1', '1e400 > 1', 'NaN <= NaN']) {
      expect(ev(e)).toBe(false);
    }
  });

  test('the first operator splits; operators need spaces around them', () => {
    expect(splitExpression('a == b == c')).toEqual({ left: 'a', op: '==', right: 'b == c' });
    expect(splitExpression('a contains b > c')).toEqual({ left: 'a', op: 'contains', right: 'b > c' });
    expect(splitExpression('5 >= 3')).toEqual({ left: '5', op: '>=', right: '3' });
    expect(splitExpression('a==b')).toBeNull();
    expect(ev('a==b')).toBe(true); // a bare, non-empty value
  });

  test('a substituted value cannot add an operator', () => {
    expect(ev('{{trigger.injected}}')).toBe(true); // bare "x == x" is just non-empty text
    expect(ev('{{trigger.injected}} == x')).toBe(false);
    // Split at the first raw operator: the value "x == x" against the literal "x == x".
    expect(ev('{{trigger.injected}} == x == x')).toBe(true);
    expect(ev('{{trigger.injected}} != x == x')).toBe(false);
    expect(ev('{{trigger.injected}} contains  == ')).toBe(true);
    const s: TemplateScope = { steps: {}, trigger: { a: '1 == 1', b: 'zzz' } };
    expect(ev('{{trigger.b}} == {{trigger.a}}', s)).toBe(false);
  });
});

describe('bare values', () => {
  test.each([
    ['true', true], ['yes', true], ['1', true], ['-1', true], ['0.0', true],
    ['false', false], ['FALSE', false], ['False', false], ['0', false], ['null', false], ['NULL', false], ['', false], ['  ', false], ["''", false],
    ['{{steps.check.ok}}', true], ['{{trigger.empty}}', false], ['{{trigger.zero}}', false], ['{{trigger.nil}}', false],
    ['{{trigger.missing}}', false], ['{{trigger.label}}', true], ['{{steps.0.body}}', true],
  ])('%p → %p', (e, expected) => {
    expect(ev(e)).toBe(expected);
  });
});

describe('shouldRunStep', () => {
  test('skip_if and run_if', () => {
    expect(shouldRunStep({}, scope)).toBe(true);
    expect(shouldRunStep({ skip_if: '{{steps.check.ok}}' }, scope)).toBe(false);
    expect(shouldRunStep({ skip_if: '{{steps.0.status}} != 200' }, scope)).toBe(true);
    expect(shouldRunStep({ run_if: '{{trigger.sentiment}} < -0.5' }, scope)).toBe(true);
    expect(shouldRunStep({ run_if: '{{trigger.label}} == positive' }, scope)).toBe(false);
    expect(shouldRunStep({ skip_if: 'false', run_if: 'true' }, scope)).toBe(true);
    expect(shouldRunStep({ skip_if: 'true', run_if: 'true' }, scope)).toBe(false);
    expect(shouldRunStep({ run_if: '   ' }, scope)).toBe(true); // blank counts as absent
  });
});

describe('properties', () => {
  const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
  const ops = ['>', '<', '>=', '<='] as const;
  const js = { '>': (a: number, b: number) => a > b, '<': (a: number, b: number) => a < b, '>=': (a: number, b: number) => a >= b, '<=': (a: number, b: number) => a <= b };

  test('numeric comparisons agree with JS on finite numbers, literal or substituted', () => {
    fc.assert(fc.property(finite, finite, fc.constantFrom(...ops), (a, b, op) => {
      expect(ev(`${a} ${op} ${b}`, { steps: {} })).toBe(js[op](a, b));
      expect(ev(`{{input.a}} ${op} {{input.b}}`, { steps: {}, input: { a, b } })).toBe(js[op](a, b));
      expect(ev(`"${a}" ${op} '${b}'`, { steps: {} })).toBe(js[op](a, b));
    }));
  });

  test('== is reflexive and != is its negation, whatever the text', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => {
      const s: TemplateScope = { steps: {}, input: { a, b } };
      expect(ev('{{input.a}} == {{input.a}}', s)).toBe(true);
      expect(ev('{{input.a}} != {{input.b}}', s)).toBe(!ev('{{input.a}} == {{input.b}}', s));
    }));
  });

  /** Text as an operand ends up: trimmed, without surrounding quotes. */
  const plain = fc.string().filter((s) => s === s.trim() && !/^["']/.test(s));

  test('== is text equality of substituted values (no operator injection)', () => {
    const withOps = fc.array(fc.oneof(plain, fc.constantFrom(' == ', ' != ', ' contains ', ' > ')), { maxLength: 5 }).map((p) => p.join('').trim()).filter((s) => !/^["']/.test(s));
    fc.assert(fc.property(withOps, withOps, (a, b) => {
      expect(ev('{{input.a}} == {{input.b}}', { steps: {}, input: { a, b } })).toBe(a === b);
    }));
  });

  test('contains agrees with String.prototype.includes', () => {
    fc.assert(fc.property(plain, plain, (a, b) => {
      expect(ev('{{input.a}} contains {{input.b}}', { steps: {}, input: { a, b } })).toBe(a.includes(b));
    }));
    fc.assert(fc.property(plain, fc.nat(20), fc.nat(20), (a, i, j) => {
      const sub = a.slice(Math.min(i, j), Math.max(i, j)).trim();
      if (/^["']/.test(sub)) return;
      expect(ev('{{input.a}} contains {{input.b}}', { steps: {}, input: { a, b: sub } })).toBe(true);
    }));
  });
});
