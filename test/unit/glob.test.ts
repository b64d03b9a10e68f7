// Property tests for policy globs: `*` one segment, `**` zero or more, in-segment `*`,
// agreement with an obviously-correct recursive model, and no exponential blow-up.
import fc from 'fast-check';
import { Problem } from '../../domain/errors.ts';
import { compileGlob, globMatches, segmentMatches } from '../../domain/paths/glob.ts';
import type { CompiledGlob } from '../../domain/paths/glob.ts';

const matches = (pattern: string, path: string) => globMatches(compileGlob(pattern), path);

function rejects(pattern: string): string {
  try {
    compileGlob(pattern);
  } catch (e) {
    expect(e).toBeInstanceOf(Problem);
    expect((e as Problem).status).toBe(400);
    expect((e as Problem).detail.startsWith('secret_path_pattern: ')).toBe(true);
    return (e as Problem).detail;
  }
  throw new Error(`expected ${JSON.stringify(pattern)} to be rejected`);
}

// Reference model: plain recursion, exponential but obviously right; fine for tiny inputs.
function refSegment(p: string, s: string): boolean {
  if (p === '') return s === '';
  if (p[0] === '*') return refSegment(p.slice(1), s) || (s !== '' && refSegment(p, s.slice(1)));
  return s !== '' && p[0] === s[0] && refSegment(p.slice(1), s.slice(1));
}
function refGlob(ps: string[], ss: string[]): boolean {
  if (ps.length === 0) return ss.length === 0;
  if (ps[0] === '**') return refGlob(ps.slice(1), ss) || (ss.length > 0 && refGlob(ps, ss.slice(1)));
  return ss.length > 0 && refSegment(ps[0], ss[0]) && refGlob(ps.slice(1), ss.slice(1));
}

const pathSeg = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 1, maxLength: 3 });
const pathSegs = fc.array(pathSeg, { minLength: 1, maxLength: 6 });
const patSeg = fc.oneof(
  fc.constant('**'),
  fc.constant('*'),
  fc.string({ unit: fc.constantFrom('a', 'b', '*'), minLength: 1, maxLength: 4 }).filter((s) => !s.includes('**')),
);
const patSegs = fc.array(patSeg, { minLength: 1, maxLength: 6 });

describe('compileGlob', () => {
  test('accepts the documented shapes', () => {
    for (const p of ['*', '**', 'api-keys/*', 'api-keys/**', 'prod/**/password', '**/openai', 'db-*', 'a/*.json/**', 'café/*']) {
      expect(compileGlob(p).pattern).toBe(p);
    }
  });

  test('consecutive ** collapse to one', () => {
    expect(compileGlob('**/**').pattern).toBe('**');
    expect(compileGlob('**/**/a/**/**/**/b').pattern).toBe('**/a/**/b');
    expect(compileGlob('**/**/a').segments).toEqual(['**', 'a']);
  });

  test('rejects malformed patterns with a 400', () => {
    for (const p of ['', '/', '/a', 'a/', 'a//b', '.', '..', 'a/./b', 'a/../b', '...']) rejects(p);
    for (const p of ['***', 'a**', '**b', 'a/x**y/b']) expect(rejects(p)).toMatch(/whole segment/);
    for (const p of ['a\u0000', 'a/\u007f', '\u0085']) expect(rejects(p)).toMatch(/control character/);
    for (const p of ['a\\b', 'a%2Fb', 'a?', 'e\u0301', '[ab]', '{a,b}']) rejects(p);
    expect(rejects('a'.repeat(513))).toMatch(/MAX_PATH_LENGTH/);
    expect(rejects(Array(33).fill('*').join('/'))).toMatch(/MAX_SEGMENTS/);
    expect(rejects('a'.repeat(129))).toMatch(/MAX_SEGMENT_LENGTH/);
  });

  test('arbitrary strings compile or throw a 400 Problem, nothing else', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (s) => {
      try {
        compileGlob(s);
      } catch (e) {
        expect(e).toBeInstanceOf(Problem);
        expect((e as Problem).status).toBe(400);
      }
    }), { numRuns: 1000 });
  });
});

describe('globMatches', () => {
  test('* matches exactly one whole segment', () => {
    expect(matches('api-keys/*', 'api-keys/openai')).toBe(true);
    expect(matches('api-keys/*', 'api-keys/openai/prod')).toBe(false);
    expect(matches('api-keys/*', 'api-keys')).toBe(false);
    expect(matches('*', 'a')).toBe(true);
    expect(matches('*', 'a/b')).toBe(false);
    expect(matches('*/openai', 'x/openai')).toBe(true);
  });

  test('** matches zero or more segments, including the folder itself', () => {
    expect(matches('api-keys/**', 'api-keys/a')).toBe(true);
    expect(matches('api-keys/**', 'api-keys/a/b/c')).toBe(true);
    expect(matches('api-keys/**', 'api-keys')).toBe(true); // zero segments
    expect(matches('api-keys/**', 'api-keysx/a')).toBe(false);
    expect(matches('prod/**/password', 'prod/password')).toBe(true);
    expect(matches('prod/**/password', 'prod/db/eu/password')).toBe(true);
    expect(matches('prod/**/password', 'prod/db/password/x')).toBe(false);
    expect(matches('**/openai', 'openai')).toBe(true);
    expect(matches('**/openai', 'a/b/openai')).toBe(true);
    expect(matches('**/openai', 'a/openai2')).toBe(false);
  });

  test('* inside a segment matches any run of characters but never crosses /', () => {
    expect(matches('db-*', 'db-prod')).toBe(true);
    expect(matches('db-*', 'db-')).toBe(true);
    expect(matches('db-*', 'db')).toBe(false);
    expect(matches('db-*', 'xdb-a')).toBe(false);
    expect(matches('db-*', 'db-a/b')).toBe(false);
    expect(matches('a*b', 'a/b')).toBe(false);
    expect(matches('*.json', 'config.json')).toBe(true);
    expect(matches('*a*b*', 'xxaxxbxx')).toBe(true);
  });

  test('** alone matches every valid path', () => {
    const g = compileGlob('**');
    fc.assert(fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'é', '.', '-', '日'), minLength: 1, maxLength: 5 })
      .filter((s) => !/^\.+$/.test(s)), { minLength: 1, maxLength: 10 }), (segs) => {
      expect(globMatches(g, segs.join('/'))).toBe(true);
    }));
  });

  test('invalid paths never match, not even **: no folding of a//b', () => {
    for (const pattern of ['**', '*/*', 'a/**/b', 'a/b']) {
      for (const path of ['', '/', 'a//b', '/a/b', 'a/b/', 'a/./b', 'a/../b', '..']) expect(matches(pattern, path)).toBe(false);
    }
  });

  test('a pattern without wildcards matches exactly its own path', () => {
    fc.assert(fc.property(pathSegs, pathSegs, (p, q) => {
      expect(matches(p.join('/'), q.join('/'))).toBe(p.join('/') === q.join('/'));
    }));
  });

  test('agrees with the recursive reference model on random small patterns and paths', () => {
    fc.assert(fc.property(patSegs, pathSegs, (ps, ss) => {
      expect(globMatches(compileGlob(ps.join('/')), ss.join('/'))).toBe(refGlob(ps, ss));
    }), { numRuns: 5000 });
  });

  test('in-segment matcher agrees with the reference on longer strings', () => {
    const p = fc.string({ unit: fc.constantFrom('a', 'b', '*'), maxLength: 8 });
    const s = fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 12 });
    fc.assert(fc.property(p, s, (pp, ss) => {
      expect(segmentMatches(pp, ss)).toBe(refSegment(pp, ss));
    }), { numRuns: 5000 });
  });

  // Completes and is right: a backtracking/regex matcher would hang here (C(100,16) ways to
  // place the `a`s); the DP does 32 × 101 steps. Time is not asserted on purpose.
  test('pathological **/a/**/a/… patterns stay polynomial', () => {
    const path = Array(100).fill('a').join('/');
    const within = compileGlob(Array(16).fill('**/a').join('/')); // 32 segments: the limit
    expect(within.segments).toHaveLength(32);
    expect(globMatches(within, path)).toBe(true);
    const miss = compileGlob(`${Array(15).fill('**/a').join('/')}/**/b`);
    expect(globMatches(miss, path)).toBe(false);
    expect(globMatches(miss, `${path}/b`)).toBe(true);
    // Twenty repetitions exceed MAX_SEGMENTS for compileGlob, but the matcher itself is still fast.
    const twenty = Array(20).fill('**/a').join('/');
    expect(() => compileGlob(twenty)).toThrow(Problem);
    const hand: CompiledGlob = { pattern: twenty, segments: twenty.split('/') };
    expect(globMatches(hand, path)).toBe(true);
    expect(globMatches({ pattern: `${twenty}/b`, segments: [...twenty.split('/'), 'b'] }, path)).toBe(false);
    // In-segment pathology: many `*` against a long segment.
    const stars = compileGlob(`${'*a'.repeat(30)}*b`);
    expect(globMatches(stars, 'a'.repeat(128))).toBe(false);
    expect(globMatches(stars, `${'a'.repeat(127)}b`)).toBe(true);
  });
});
