// `{{ path }}` templates of automation steps (domain/automations/engine/templates.ts): the spec's
// patterns, single-pass resolution, and paths that must never reach prototypes.
import fc from 'fast-check';
import {
  MAX_TEMPLATE_INPUT, MAX_TEMPLATES_PER_STRING, resolveTemplates, resolveTemplateString, TemplateError,
} from '../../domain/automations/engine/templates.ts';
import type { TemplateScope } from '../../domain/automations/spec/step-types.ts';

const price = { status: 200, body: { price: 3120.5, pairs: ['ETH', 'USDC'], nested: { deep: { x: 'y' } } }, nothing: null };
const scope: TemplateScope = {
  steps: { 0: price, quote: price, 1: { value: 'sekret', count: 5, ok: true } },
  webhook_payload: { user: { email: 'a@example.com', tags: ['vip', 'beta'] }, text: 'hello', list: [{ id: 7 }] },
  _event: { type: 'secret.created', payload: { path: 'db/password' } },
  input: { amount: '42' },
};

const r = (v: unknown, s: TemplateScope = scope) => resolveTemplates(v, s);

describe('patterns of the spec', () => {
  test('steps by index and by name, nested fields, array indexes', () => {
    expect(r('{{steps.0.status}}')).toBe('200');
    expect(r('{{ steps.quote.body.price }}')).toBe('3120.5');
    expect(r('{{steps.quote.body.pairs.1}}')).toBe('USDC');
    expect(r('{{steps.0.body.nested.deep.x}}')).toBe('y');
    expect(r('Price: {{steps.quote.body.price}} USD, ok={{steps.1.ok}}')).toBe('Price: 3120.5 USD, ok=true');
  });

  test('webhook_payload and trigger are aliases both ways', () => {
    expect(r('{{webhook_payload.user.email}}')).toBe('a@example.com');
    expect(r('{{trigger.user.email}}')).toBe('a@example.com');
    expect(r('{{webhook_payload.text}}', { steps: {}, trigger: { text: 'via trigger' } })).toBe('via trigger');
    expect(r('{{trigger.list.0.id}}')).toBe('7');
  });

  test('_event and input', () => {
    expect(r('{{_event.type}}: {{_event.payload.path}}')).toBe('secret.created: db/password');
    expect(r('{{input.amount}}')).toBe('42');
  });

  test('missing paths and null give empty text', () => {
    expect(r('({{steps.9.x}})')).toBe('()');
    expect(r('a{{steps.quote.nothing}}b')).toBe('ab');
    expect(r('{{steps.quote.body.pairs.5}}|{{steps.quote.body.pairs.-1}}|{{steps.quote.body.pairs.x}}')).toBe('||');
    expect(r('{{trigger.text.length}}')).toBe('');
    expect(r('{{input.amount.0}}')).toBe('');
    expect(r('{{steps..status}}')).toBe('');
    expect(r('{{_event.type}}', { steps: {} })).toBe('');
  });

  test('objects and arrays are substituted as JSON, parsed back when the result is JSON', () => {
    expect(r('{{steps.quote.body}}')).toEqual(price.body);
    expect(r('{{trigger.user.tags}}')).toEqual(['vip', 'beta']);
    expect(r('tags: {{trigger.user.tags}}')).toBe('tags: ["vip","beta"]');
    expect(r('{"price": {{steps.0.body.price}}, "who": "{{trigger.user.email}}"}')).toEqual({ price: 3120.5, who: 'a@example.com' });
    expect(r(' [{{steps.1.count}}, 1]')).toEqual([5, 1]);
    expect(r('{ not json {{steps.1.count}}')).toBe('{ not json 5');
  });

  test('numbers stay text (run-time checks coerce them)', () => {
    expect(r('{{steps.1.count}}')).toBe('5');
  });

  test('walks objects and arrays, keeps keys and non-strings', () => {
    const step = { url: 'https://x.example/{{trigger.user.email}}', headers: { '{{k}}': 'v {{input.amount}}' }, n: 3, b: false, z: null, list: ['{{steps.1.value}}', 1] };
    expect(r(step)).toEqual({ url: 'https://x.example/a@example.com', headers: { '{{k}}': 'v 42' }, n: 3, b: false, z: null, list: ['sekret', 1] });
  });

  test('templates of other roots stay as written', () => {
    expect(r('Dear {{first_name}}, {{ unknown.path }}')).toBe('Dear {{first_name}}, {{ unknown.path }}');
    expect(r('{{}} {{ }} {{steps.1.count')).toBe('{{}} {{ }} {{steps.1.count');
  });
});

describe('single pass', () => {
  test('a payload holding a template stays literal', () => {
    const s: TemplateScope = { steps: { 0: { value: 'SECRET' } }, webhook_payload: { msg: '{{steps.0.value}}' } };
    expect(r('{{webhook_payload.msg}}', s)).toBe('{{steps.0.value}}');
    expect(r('say {{trigger.msg}}', s)).toBe('say {{steps.0.value}}');
    expect(r({ a: ['{{trigger.msg}}'] }, s)).toEqual({ a: ['{{steps.0.value}}'] });
    // Parsed back as JSON, still not resolved.
    const j: TemplateScope = { steps: { 0: { value: 'SECRET' } }, trigger: { obj: { m: '{{steps.0.value}}' } } };
    expect(r('{{trigger.obj}}', j)).toEqual({ m: '{{steps.0.value}}' });
  });

  test('a substitution that completes a template with its neighbours is not resolved', () => {
    const s: TemplateScope = { steps: { 0: { value: 'SECRET' } }, trigger: { open: '{{', close: '}}' } };
    expect(r('{{trigger.open}}steps.0.value{{trigger.close}}', s)).toBe('{{steps.0.value}}');
  });

  test('property: substituting any text inserts exactly that text', () => {
    const piece = fc.oneof(fc.string(), fc.constantFrom('{{', '}}', '{{steps.0.value}}', '{{ trigger.v }}', '{', '[', ' == '));
    const text = fc.array(piece, { maxLength: 6 }).map((a) => a.join(''));
    fc.assert(fc.property(text, text, text, (v, pre, post) => {
      const pl = pre.replaceAll('{{', '').replaceAll('}}', '');
      const po = post.replaceAll('{{', '').replaceAll('}}', '');
      const s: TemplateScope = { steps: { 0: { value: 'SECRET' } }, trigger: { v } };
      expect(resolveTemplateString(`${pl}{{trigger.v}}${po}`, s)).toBe(pl + v + po);
      const whole = resolveTemplates('{{trigger.v}}', s);
      let parsed: unknown = v;
      if (/^\s*[[{]/.test(v)) { try { parsed = JSON.parse(v); } catch { /* text */ } }
      expect(whole).toEqual(parsed);
    }));
  });
});

describe('strings without templates', () => {
  test('property: unchanged', () => {
    fc.assert(fc.property(fc.string().filter((s) => !s.includes('{{')), (s) => {
      expect(r(s)).toBe(s);
    }));
    fc.assert(fc.property(fc.jsonValue().filter((v) => !JSON.stringify(v).includes('{{')), (v) => {
      expect(r(v)).toEqual(v);
    }));
  });
});

describe('prototype keys', () => {
  const FORBIDDEN = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'length', '__defineGetter__'];

  test('are unreachable from any root', () => {
    for (const root of ['steps', 'steps.0', 'steps.quote.body', 'trigger', 'trigger.user.tags', 'trigger.text', '_event', 'input']) {
      for (const k of FORBIDDEN) expect(r(`{{${root}.${k}}}`)).toBe('');
    }
    expect(r('{{trigger.__proto__.constructor.name}}')).toBe('');
    expect(r('{{steps.constructor.constructor}}')).toBe('');
  });

  test('property: paths through prototype names resolve to nothing', () => {
    const seg = fc.oneof(fc.constantFrom(...FORBIDDEN), fc.constantFrom('user', 'tags', '0', 'body', 'text'));
    fc.assert(fc.property(fc.constantFrom('steps', 'trigger', 'webhook_payload', '_event', 'input'), fc.array(seg, { maxLength: 4 }), fc.constantFrom(...FORBIDDEN), (root, mid, bad) => {
      expect(r(`{{${[root, ...mid, bad].join('.')}}}`)).toBe('');
    }));
  });

  test('own keys named like them are still data', () => {
    const s: TemplateScope = { steps: {}, trigger: JSON.parse('{"__proto__": {"polluted": 1}, "constructor": "c"}') };
    expect(r('{{trigger.__proto__.polluted}}', s)).toBe('');
    const out = r(JSON.parse('{"__proto__": {"polluted": "{{input.amount}}"}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: '42' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('getters are never called', () => {
    let called = false;
    const trigger = { get secret() { called = true; return 'x'; } };
    expect(r('{{trigger.secret}}', { steps: {}, trigger })).toBe('');
    expect(called).toBe(false);
  });
});

describe('bounds', () => {
  test('too many templates in one string', () => {
    expect(() => r('{{input.amount}}'.repeat(MAX_TEMPLATES_PER_STRING + 1))).toThrow(TemplateError);
    expect(r('{{input.amount}}'.repeat(MAX_TEMPLATES_PER_STRING))).toBe('42'.repeat(MAX_TEMPLATES_PER_STRING));
  });

  test('too long a templated string; long plain strings pass', () => {
    expect(() => r(`${'x'.repeat(MAX_TEMPLATE_INPUT)}{{input.amount}}`)).toThrow(/longer than/);
    const plain = 'x'.repeat(MAX_TEMPLATE_INPUT + 10);
    expect(r(plain)).toBe(plain);
  });

  test('output growth is bounded', () => {
    const big: TemplateScope = { steps: {}, input: { big: 'y'.repeat(10_000) } };
    expect(() => r('{{input.big}}'.repeat(500), big)).toThrow(/grows beyond/);
  });

  test('nesting is bounded', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(() => r(deep)).toThrow(TemplateError);
  });
});
