// The one rule every piece of input passes before any schema sees it (JSON bodies, query strings,
// path parameters): text Postgres can store, and a shape small enough to walk safely.
// - NUL (U+0000) in a string or a key: Postgres refuses it in text and jsonb (a 500 otherwise).
// - A lone UTF-16 surrogate (`"\ud800"` in JSON): not Unicode text; jsonb refuses it and a
//   text column would silently get U+FFFD instead.
// - Nesting deeper than MAX_JSON_DEPTH: recursive code further on (JSON.stringify in a size
//   check, jsonb, presenters) would overflow its stack on thousands of levels.
// The walk is iterative, so the check itself cannot overflow.

/** Deepest nesting accepted: the body's own object or array is level 1. */
export const MAX_JSON_DEPTH = 32;
/** At most this many findings are reported for one input. */
const MAX_FINDINGS = 10;

export type InputFinding = { field: string; message: string };

const NUL_MESSAGE = 'must not contain NUL characters';
const SURROGATE_MESSAGE = 'must be well-formed Unicode (no lone surrogates)';

/** Why a string cannot be stored, or null when it can. */
export function unsafeTextReason(s: string): string | null {
  if (s.includes('\u0000')) return NUL_MESSAGE;
  if (!s.isWellFormed()) return SURROGATE_MESSAGE;
  return null;
}

type Step = { key: string | number; parent: Step | null };
type Container = { v: object; at: Step | null; depth: number };

/**
 * Findings for every string, key and container in `value` that breaks the rule, naming each by
 * its dotted path below `root` (the same naming zod issues get in api/validate.ts).
 */
export function findUnsafeInput(value: unknown, root: string, maxDepth = MAX_JSON_DEPTH): InputFinding[] {
  const findings: InputFinding[] = [];
  const report = (at: Step | null, message: string) => findings.push({ field: pathOf(at, root), message });
  // Strings are checked where they are met (most of a large body); containers wait on a stack
  // with a link to their parent, so a path is only spelled out for a finding.
  const stack: Container[] = [];
  const meet = (v: unknown, parent: Step | null, key: string | number | null, depth: number) => {
    const at = () => (key === null ? parent : { key, parent });
    if (typeof v === 'string') {
      const reason = unsafeTextReason(v);
      if (reason) report(at(), reason);
    } else if (v !== null && typeof v === 'object') {
      if (depth > maxDepth) report(at(), `is nested too deeply (at most ${maxDepth} levels)`);
      else stack.push({ v, at: at(), depth });
    }
  };
  meet(value, null, null, 1);
  while (stack.length > 0 && findings.length < MAX_FINDINGS) {
    const { v, at, depth } = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) meet(v[i], at, i, depth + 1);
      continue;
    }
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      const reason = unsafeTextReason(key);
      // The key is shown escaped: a problem answer should not echo NUL or a lone surrogate back.
      if (reason) report({ key: printable(key), parent: at }, `key ${reason}`);
      else meet((v as Record<string, unknown>)[key], at, key, depth + 1);
    }
  }
  return findings.slice(0, MAX_FINDINGS);
}

/** The dotted path of a step, or `root` for the input itself. */
function pathOf(at: Step | null, root: string): string {
  const keys: (string | number)[] = [];
  for (let s = at; s; s = s.parent) keys.push(s.key);
  return keys.length > 0 ? keys.reverse().join('.') : root;
}

/** `s` with NUL and lone surrogates written as \uXXXX escapes. */
function printable(s: string): string {
  return s.replace(/\u0000|\p{Cs}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
