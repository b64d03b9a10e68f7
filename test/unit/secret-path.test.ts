// Property tests for secret-path canonicalization: three client encodings, fixed points,
// rejections (dot and empty segments, control characters, non-NFC), limits, prefix filters.
import fc from 'fast-check';
import { Problem } from '../../domain/errors.ts';
import {
  canonicalSecretPath, secretPathPrefix, isUnderPrefix, MAX_PATH_LENGTH, MAX_SEGMENTS, MAX_SEGMENT_LENGTH,
} from '../../domain/paths/secret-path.ts';

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function problemOf(fn: () => unknown): Problem {
  try {
    fn();
  } catch (e) {
    if (e instanceof Problem) return e;
    throw e;
  }
  throw new Error('expected a Problem, nothing was thrown');
}
const rejects = (fn: () => unknown, label = 'path') => {
  const p = problemOf(fn);
  expect(p.status).toBe(400);
  expect(p.detail.startsWith(`${label}: `)).toBe(true);
  expect(CONTROL.test(p.detail)).toBe(false);
  return p.detail;
};

// Valid segments, defined independently of the module: allowed characters (incl. multi-code-point
// NFC text such as Devanagari 'कि'), not only dots, no space at either end.
const UNITS = [...'abcxyzABZ019_-.~@+=,: ', 'é', 'ß', 'Ж', '日', 'ğ', 'कि'];
const segment = fc.string({ unit: fc.constantFrom(...UNITS), minLength: 1, maxLength: 10 })
  .filter((s) => !/^\.+$/.test(s) && !s.startsWith(' ') && !s.endsWith(' '));
const segments = fc.array(segment, { minLength: 1, maxLength: 6 });

const utf8 = new TextEncoder();
const pct = (ch: string, lower: boolean) => [...utf8.encode(ch)]
  .map((b) => `%${b.toString(16).padStart(2, '0')}`)
  .map((x) => (lower ? x.toLowerCase() : x.toUpperCase())).join('');
// Percent-encode an arbitrary selection of characters (including `/` and unreserved ones).
const encodeSome = (path: string, mask: boolean[], lower: boolean) => {
  let k = 0;
  let out = '';
  for (const ch of path) out += mask[k++ % mask.length] ? pct(ch, lower) : ch;
  return out;
};
const wireForms = (segs: string[]) => {
  const path = segs.join('/');
  return [
    encodeURI(path), // SDK: slashes raw, URL class escapes spaces and non-ASCII
    segs.map(encodeURIComponent).join('/'), // MCP: each segment encoded
    encodeURIComponent(path), // CLI: whole path, `/` as %2F
    encodeSome(path, [true], false), // every character encoded, %2E%2E style
  ];
};

describe('canonicalSecretPath', () => {
  test('examples', () => {
    expect(canonicalSecretPath('api-keys/openai')).toBe('api-keys/openai');
    expect(canonicalSecretPath('api-keys%2Fopenai')).toBe('api-keys/openai');
    expect(canonicalSecretPath('api-keys%2fopenai')).toBe('api-keys/openai');
    expect(canonicalSecretPath('api%2Dkeys/open%20ai')).toBe('api-keys/open ai');
    expect(canonicalSecretPath('db/db.password')).toBe('db/db.password');
    expect(canonicalSecretPath('.env')).toBe('.env');
    expect(canonicalSecretPath('caf%C3%A9/%E0%A4%95%E0%A4%BF')).toBe('café/कि');
    expect(canonicalSecretPath('a')).toBe('a');
  });

  test('the three client encodings (and any mix of escapes) give the same canonical path', () => {
    fc.assert(fc.property(segments, fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }), fc.boolean(), (segs, mask, lower) => {
      const path = segs.join('/');
      for (const raw of [...wireForms(segs), encodeSome(path, mask, lower)]) expect(canonicalSecretPath(raw)).toBe(path);
    }), { numRuns: 500 });
  });

  test('canonical paths are fixed points', () => {
    fc.assert(fc.property(segments, (segs) => {
      const canonical = canonicalSecretPath(segs.map(encodeURIComponent).join('/'));
      expect(canonicalSecretPath(canonical)).toBe(canonical);
      expect(canonicalSecretPath(segs.map(encodeURIComponent).join('/'))).toBe(canonical);
    }));
  });

  test('"." and ".." (and dot-only) segments are rejected in every encoding', () => {
    fc.assert(fc.property(segments, fc.nat(), fc.constantFrom('.', '..', '...'), (segs, at, dots) => {
      const bad = [...segs];
      bad.splice(at % (bad.length + 1), 0, dots);
      for (const raw of [bad.join('/'), ...wireForms(bad)]) expect(rejects(() => canonicalSecretPath(raw))).toMatch(/dots/);
    }));
  });

  test('empty segments (leading, trailing, double slash) are rejected, never folded', () => {
    fc.assert(fc.property(segments, fc.nat(), fc.constantFrom('lead', 'trail', 'double'), (segs, at, where) => {
      const bad = [...segs];
      if (where === 'lead') bad.unshift('');
      else if (where === 'trail') bad.push('');
      else bad.splice(1 + (at % bad.length), 0, '');
      for (const raw of [bad.join('/'), ...wireForms(bad)]) expect(rejects(() => canonicalSecretPath(raw))).toMatch(/empty/);
    }));
    for (const raw of ['', '/', '//', 'a//b', '/a', 'a/', 'a%2F%2Fb', '%2Fa']) rejects(() => canonicalSecretPath(raw));
  });

  const controlChar = fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0x9f }))
    .map((c) => String.fromCharCode(c));

  test('control characters (C0, DEL, C1) are rejected, raw or encoded, and never echoed', () => {
    fc.assert(fc.property(segments, fc.nat(), fc.nat(), controlChar, (segs, si, ci, ctl) => {
      const bad = [...segs];
      const i = si % bad.length;
      const s = bad[i];
      const at = ci % (s.length + 1);
      bad[i] = s.slice(0, at) + ctl + s.slice(at);
      for (const raw of [bad.join('/'), ...wireForms(bad)]) expect(rejects(() => canonicalSecretPath(raw))).toMatch(/control character U\+00[0-9A-F]{2}/);
    }));
  });

  test('non-NFC text is rejected, not normalized', () => {
    const decomposed = fc.constantFrom('e\u0301', 'A\u030a', '\u212b' /* Angstrom sign */, '\u1100\u1161' /* jamo → 가 */, 'n\u0303');
    fc.assert(fc.property(segments, fc.nat(), decomposed, (segs, si, d) => {
      const bad = [...segs];
      const i = si % bad.length;
      bad[i] = `x${d}${bad[i]}`;
      for (const raw of [bad.join('/'), ...wireForms(bad)]) expect(rejects(() => canonicalSecretPath(raw))).toMatch(/NFC/);
    }));
  });

  test('backslash, %, glob characters and other symbols are refused', () => {
    for (const raw of ['a\\b', 'a%5Cb', 'a*', 'a?b', 'a%3Fb', 'a!b', 'a%22b', 'a<b', 'a;b', 'a\u200bb', 'a\u202eb', '\u3164', '\u{1F511}key']) {
      rejects(() => canonicalSecretPath(raw));
    }
    expect(rejects(() => canonicalSecretPath('a%5Cb'))).toMatch(/backslash/);
    // A leading/trailing space or a leading combining mark is refused.
    for (const raw of ['%20a', 'a%20', 'a/%20/b', '%CC%81a']) rejects(() => canonicalSecretPath(raw));
  });

  test('decoding happens once: %252F is the text "%2F", and % is not an allowed character', () => {
    expect(rejects(() => canonicalSecretPath('a%252Fb'))).toMatch(/U\+0025/);
    expect(rejects(() => canonicalSecretPath('%25'))).toMatch(/U\+0025/);
    expect(rejects(() => canonicalSecretPath('a%252E%252E'))).toMatch(/U\+0025/);
    expect(canonicalSecretPath('a%2Fb')).toBe('a/b');
  });

  test('malformed escapes and invalid UTF-8 are a 400', () => {
    for (const raw of ['%', 'a%', 'a%2', '%zz', '%E0%A4', '%C3', '%ED%A0%80', '%FF', '%C0%AF']) {
      expect(rejects(() => canonicalSecretPath(raw))).toMatch(/malformed/);
    }
  });

  test('limits are enforced and named', () => {
    const seg = (n: number) => 'a'.repeat(n);
    expect(canonicalSecretPath(seg(MAX_SEGMENT_LENGTH))).toBe(seg(MAX_SEGMENT_LENGTH));
    expect(rejects(() => canonicalSecretPath(seg(MAX_SEGMENT_LENGTH + 1)))).toMatch(/MAX_SEGMENT_LENGTH/);
    // Counted in code points, not bytes or escapes: 128 × 'é' is fine even though it arrives as 768 characters.
    expect(canonicalSecretPath('%C3%A9'.repeat(MAX_SEGMENT_LENGTH))).toBe('é'.repeat(MAX_SEGMENT_LENGTH));
    const many = (n: number) => Array.from({ length: n }, () => 'a').join('/');
    expect(canonicalSecretPath(many(MAX_SEGMENTS))).toBe(many(MAX_SEGMENTS));
    expect(rejects(() => canonicalSecretPath(many(MAX_SEGMENTS + 1)))).toMatch(/MAX_SEGMENTS/);
    const long = (n: number) => [seg(128), seg(128), seg(128), seg(n - 3 * 129)].join('/');
    expect(canonicalSecretPath(long(MAX_PATH_LENGTH))).toHaveLength(MAX_PATH_LENGTH);
    expect(rejects(() => canonicalSecretPath(long(MAX_PATH_LENGTH + 1)))).toMatch(/MAX_PATH_LENGTH/);
    expect(rejects(() => canonicalSecretPath('%41'.repeat(100_000)))).toMatch(/MAX_PATH_LENGTH/);
  });

  test('arbitrary strings never throw anything but a 400 Problem, and what passes is canonical', () => {
    const wireUnit = fc.constantFrom('%', '2', 'F', 'f', '5', 'C', 'E', '/', '.', 'a', ' ', '\\', '\u0000', 'é', '%C3', '%A9', '%2E', '%2F', '%25', '%00', '%CC%81');
    const check = (raw: string) => {
      let out: string;
      try {
        out = canonicalSecretPath(raw);
      } catch (e) {
        expect(e).toBeInstanceOf(Problem);
        expect((e as Problem).status).toBe(400);
        expect(CONTROL.test((e as Problem).detail)).toBe(false);
        return;
      }
      expect(out).not.toContain('%');
      expect(canonicalSecretPath(out)).toBe(out);
    };
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), check), { numRuns: 1000 });
    fc.assert(fc.property(fc.string({ unit: wireUnit, maxLength: 20 }), check), { numRuns: 1000 });
  });
});

describe('secretPathPrefix', () => {
  test('examples: empty = everything, trailing slash = folder, no percent-decoding', () => {
    expect(secretPathPrefix('')).toBe('');
    expect(secretPathPrefix('api-keys')).toBe('api-keys');
    expect(secretPathPrefix('api-keys/')).toBe('api-keys/');
    expect(secretPathPrefix('prod/db.password')).toBe('prod/db.password');
    for (const bad of ['/', '//', 'a//', '/a', 'a//b', '../a', 'a/./', 'a%2Fb', 'e\u0301', 'a\u0000', 'a\\b']) {
      rejects(() => secretPathPrefix(bad), 'prefix');
    }
  });

  test('a valid path is its own prefix, with or without the folder slash', () => {
    fc.assert(fc.property(segments, (segs) => {
      const path = segs.join('/');
      expect(secretPathPrefix(path)).toBe(path);
      expect(secretPathPrefix(`${path}/`)).toBe(`${path}/`);
    }));
  });
});

describe('isUnderPrefix', () => {
  test('examples: segment-aware, never a plain string prefix', () => {
    expect(isUnderPrefix('api', 'api')).toBe(true);
    expect(isUnderPrefix('api/x', 'api')).toBe(true);
    expect(isUnderPrefix('api/x/y', 'api')).toBe(true);
    expect(isUnderPrefix('apikeys/x', 'api')).toBe(false);
    expect(isUnderPrefix('api/x', 'api/')).toBe(true);
    expect(isUnderPrefix('api', 'api/')).toBe(false);
    expect(isUnderPrefix('apikeys/x', 'api/')).toBe(false);
    expect(isUnderPrefix('anything/at/all', '')).toBe(true);
  });

  test('agrees with a model on segment arrays', () => {
    const seg = fc.constantFrom('a', 'ab', 'b');
    const segs = fc.array(seg, { minLength: 1, maxLength: 4 });
    const startsWith = (p: string[], q: string[]) => q.length <= p.length && q.every((s, i) => p[i] === s);
    fc.assert(fc.property(segs, segs, (p, q) => {
      const path = p.join('/');
      const prefix = q.join('/');
      expect(isUnderPrefix(path, prefix)).toBe(startsWith(p, q));
      expect(isUnderPrefix(path, `${prefix}/`)).toBe(startsWith(p, q) && p.length > q.length);
    }), { numRuns: 500 });
  });
});
