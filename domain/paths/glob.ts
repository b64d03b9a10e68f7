// Policy globs (`secret_path_pattern`) over canonical secret paths, matched segment by segment.
// No regex is ever built from a pattern: glob libraries go exponential on `**/a/**/a/…`
// (see STACK-NOTES) and some fold `a//b` into `a/b`. This matcher is a DP over
// (pattern segment, path segment): O(P×S) segment comparisons, each O(len×len) at worst.
//
// Semantics (1Claw: `*` = exactly one segment, `**` = zero or more):
//   `**`          a whole segment; any number of path segments, including zero, so
//                 `api-keys/**` matches `api-keys` itself as well as `api-keys/a/b`;
//   `*`           exactly one whole segment (`api-keys/*` matches `api-keys/x`, not `api-keys`);
//   `db-*`        a literal segment where each `*` matches any run (possibly empty) of characters
//                 within that one segment; `*` never crosses `/`.
// Literal text follows the secret-path character rules, so a pattern can name every valid path
// and nothing else.
import { badRequest } from '../errors.ts';
import { splitChecked } from './secret-path.ts';

export type CompiledGlob = {
  /** Canonical spelling: consecutive `**` segments collapsed. */
  readonly pattern: string;
  readonly segments: readonly string[];
};

const ANY_DEPTH = '**';
const ONLY_DOTS = /^\.+$/;

export function compileGlob(pattern: string): CompiledGlob {
  const segs = splitChecked(pattern, 'secret_path_pattern', '*');
  const out: string[] = [];
  segs.forEach((seg, i) => {
    if (seg.includes(ANY_DEPTH) && seg !== ANY_DEPTH) {
      throw badRequest(`secret_path_pattern: segment ${i + 1}: "**" must be a whole segment (no "***", "a**")`);
    }
    // `**/**` means the same as `**`; collapsing keeps one spelling per meaning.
    if (seg === ANY_DEPTH && out[out.length - 1] === ANY_DEPTH) return;
    out.push(seg);
  });
  return Object.freeze({ pattern: out.join('/'), segments: Object.freeze(out) });
}

/**
 * Does the canonical `path` match? Empty and dot-only segments (`a//b`, `a/../b`) never match:
 * they are invalid paths, never folded. Length limits are not re-checked here; the DP is
 * polynomial whatever the size.
 */
export function globMatches(g: CompiledGlob, path: string): boolean {
  const segs = path.split('/');
  if (segs.some((s) => s === '' || ONLY_DOTS.test(s))) return false;
  const n = segs.length;
  // reach[j]: the pattern segments seen so far can consume exactly the first j path segments.
  let reach: boolean[] = new Array<boolean>(n + 1).fill(false);
  reach[0] = true;
  for (const p of g.segments) {
    const next: boolean[] = new Array<boolean>(n + 1).fill(false);
    if (p === ANY_DEPTH) {
      // `**` at j: some earlier i ≤ j was reachable (running OR = zero or more segments).
      let any = false;
      for (let j = 0; j <= n; j++) {
        any = any || reach[j];
        next[j] = any;
      }
    } else {
      for (let j = 1; j <= n; j++) next[j] = reach[j - 1] && segmentMatches(p, segs[j - 1]);
    }
    if (!next.includes(true)) return false; // nothing can match any more
    reach = next;
  }
  return reach[n];
}

/**
 * One pattern segment against one path segment; `*` = any run of characters.
 * Classic greedy matcher with a single backtrack point (the last `*`): O(|p|×|s|) worst case,
 * never exponential, because a later `*` subsumes every earlier choice.
 */
export function segmentMatches(p: string, s: string): boolean {
  if (!p.includes('*')) return p === s;
  let i = 0; // in p
  let j = 0; // in s
  let star = -1; // index of the last `*` seen in p
  let resume = 0; // position in s where that `*` currently ends
  while (j < s.length) {
    if (i < p.length && p[i] === '*') { // star first, so a literal `*` in s is never mistaken for one
      star = i++;
      resume = j;
    } else if (i < p.length && p[i] === s[j]) {
      i++;
      j++;
    } else if (star >= 0) { // let the last `*` swallow one more character and retry
      i = star + 1;
      j = ++resume;
    } else {
      return false;
    }
  }
  while (i < p.length && p[i] === '*') i++;
  return i === p.length;
}
