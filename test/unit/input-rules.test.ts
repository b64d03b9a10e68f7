// The rules every input obeys whatever its schema (api/input/safe-json.ts,
// api/input/query-integers.ts), as properties.
import fc from 'fast-check';
import { z } from 'zod';
import { findUnsafeInput, MAX_JSON_DEPTH } from '../../api/input/safe-json.ts';
import { integerTextFindings, isDecimalInt32, INT32_MAX, INT32_MIN } from '../../api/input/query-integers.ts';

const safeText = fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000'));
const safeJson = fc.jsonValue({ maxDepth: 6, stringUnit: 'grapheme' }).filter((v) => !JSON.stringify(v).includes('\\u0000'));

/** `leaf` inside `depth` containers, objects and arrays in turn. */
function nestedAt(depth: number, leaf: unknown): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { k: v } : [v];
  return v;
}

describe('findUnsafeInput', () => {
  test('accepts storable text at any depth up to the limit', () => {
    fc.assert(fc.property(safeJson, (v) => { expect(findUnsafeInput(v, 'body')).toEqual([]); }));
    expect(findUnsafeInput(nestedAt(MAX_JSON_DEPTH - 1, { ok: 'yes' }), 'body')).toEqual([]);
  });

  test('refuses NUL and lone surrogates in any string or key, naming where', () => {
    const bad = fc.constantFrom('\u0000', '\ud800', '\udfff', '\udc00\ud800');
    fc.assert(fc.property(safeText, bad, safeText, fc.nat(10), fc.boolean(), (pre, b, post, depth, asKey) => {
      const text = pre + b + post;
      const found = findUnsafeInput(nestedAt(depth, asKey ? { [text]: 1 } : text), 'body');
      expect(found).toHaveLength(1);
      expect(found[0]!.message).toMatch(asKey ? /^key must/ : /^must/);
      // The field name never echoes the character back.
      expect(found[0]!.field.isWellFormed() && !found[0]!.field.includes('\u0000')).toBe(true);
    }));
  });

  test('refuses nesting past the limit without overflowing, however deep', () => {
    expect(findUnsafeInput(nestedAt(MAX_JSON_DEPTH + 1, 1), 'body')).toEqual([{ field: expect.any(String), message: expect.stringMatching(/nested too deeply/) }]);
    const deep = JSON.parse('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000));
    expect(findUnsafeInput({ metadata: deep }, 'body')).toHaveLength(1);
  });

  test('names the input itself when it is the culprit', () => {
    expect(findUnsafeInput('a\u0000', 'query')).toEqual([{ field: 'query', message: 'must not contain NUL characters' }]);
    expect(findUnsafeInput({ tags: ['ok', 'b\u0000'] }, 'body')).toEqual([{ field: 'tags.1', message: 'must not contain NUL characters' }]);
  });
});

describe('integer query text', () => {
  test('a decimal within 32 bits passes; anything past it does not', () => {
    fc.assert(fc.property(fc.integer({ min: INT32_MIN, max: INT32_MAX }), (n) => { expect(isDecimalInt32(String(n))).toBe(true); }));
    fc.assert(fc.property(fc.oneof(fc.bigInt({ min: BigInt(INT32_MAX) + 1n, max: 10n ** 30n }), fc.bigInt({ min: -(10n ** 30n), max: BigInt(INT32_MIN) - 1n })),
      (n) => { expect(isDecimalInt32(String(n))).toBe(false); }));
    for (const s of ['1e3', '0x10', ' 5', '5 ', '+5', '1.0', 'Infinity', 'NaN', '']) expect({ s, ok: isDecimalInt32(s) }).toEqual({ s, ok: false });
  });

  test('applies to integer fields of an object schema, through optional and default', () => {
    const schema = z.object({
      version: z.coerce.number().int().positive().optional(),
      limit: z.coerce.number().int().min(1).max(500).default(100),
      ratio: z.coerce.number().optional(),
      prefix: z.string().optional(),
    });
    expect(integerTextFindings(schema, { version: '2147483648', limit: '1e2', ratio: '1e10', prefix: '99999999999' }).map((f) => f.field)).toEqual(['version', 'limit']);
    expect(integerTextFindings(schema, { version: '7', limit: '', ratio: '1.5' })).toEqual([]);
  });
});
