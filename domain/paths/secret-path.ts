// Secret paths are made canonical before any authorization or storage: one spelling per path,
// so a policy glob and the storage key always talk about the same string.
// Canonical form = the decoded path itself; anything that is not already canonical is a 400
// (we never fold, trim or normalize silently, because a silent fix is a second spelling).
import { badRequest } from '../errors.ts';

export const MAX_PATH_LENGTH = 512; // code points of the decoded path
export const MAX_SEGMENTS = 32;
export const MAX_SEGMENT_LENGTH = 128; // code points

// Allowed in a segment (a superset of 1Claw's write rule `[a-zA-Z0-9_-]`):
//   Unicode letters (\p{L}), combining marks (\p{M}, needed by scripts such as Devanagari even in
//   NFC), decimal digits (\p{Nd}), and `_ - . ~ @ + = , :` and space.
// Refused on purpose: `%` (a decoded `%` would invite a second decoding), `*` and `?` (glob
// syntax), `/` and `\` (separators), `!`, quotes, `<>&;#|$` and every other symbol or
// invisible format character (bidi overrides, zero-width joiners), plus the invisible Hangul
// filler letters. A segment may not be only dots, start or end with a space, or start with a mark.
const ALLOWED_CHAR = /^[\p{L}\p{M}\p{Nd} _.~@+=,:-]$/u;
const INVISIBLE_LETTER = /[\u115f\u1160\u3164\uffa0]/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/; // C0, DEL, C1
const ONLY_DOTS = /^\.+$/;

// Messages name characters as U+XXXX and never echo input, so nothing hostile reaches logs or UIs.
const u = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `seg` is not an acceptable segment, or null. `extra` lists more allowed characters (globs: `*`). */
export function segmentProblem(seg: string, extra = ''): string | null {
  if (seg === '') return 'empty segment (leading, trailing or double slash)';
  if ([...seg].length > MAX_SEGMENT_LENGTH) return `segment longer than MAX_SEGMENT_LENGTH (${MAX_SEGMENT_LENGTH} characters)`;
  if (ONLY_DOTS.test(seg)) return 'a segment may not be "." or ".." (or only dots)';
  const ctl = CONTROL.exec(seg);
  if (ctl) return `control character ${u(ctl[0])} is not allowed`;
  if (seg.includes('\\')) return 'backslash is not allowed';
  if (seg.normalize('NFC') !== seg) return 'text is not in Unicode NFC form';
  for (const ch of seg) {
    if ((!ALLOWED_CHAR.test(ch) && !extra.includes(ch)) || INVISIBLE_LETTER.test(ch)) return `character ${u(ch)} is not allowed`;
  }
  if (seg.startsWith(' ') || seg.endsWith(' ')) return 'a segment may not start or end with a space';
  if (/^\p{M}/u.test(seg)) return 'a segment may not start with a combining mark';
  return null;
}

/** Splits an already-decoded path on `/` and checks limits and every segment; throws 400 `${what}: …`. */
export function splitChecked(text: string, what: string, extra = ''): string[] {
  if (text === '') throw badRequest(`${what}: empty`);
  // Cheap UTF-16 bound first so huge inputs never get spread into arrays.
  if (text.length > 2 * MAX_PATH_LENGTH || [...text].length > MAX_PATH_LENGTH) {
    throw badRequest(`${what}: longer than MAX_PATH_LENGTH (${MAX_PATH_LENGTH} characters)`);
  }
  const segs = text.split('/');
  if (segs.length > MAX_SEGMENTS) throw badRequest(`${what}: more than MAX_SEGMENTS (${MAX_SEGMENTS} segments)`);
  segs.forEach((seg, i) => {
    const problem = segmentProblem(seg, extra);
    if (problem) throw badRequest(`${what}: segment ${i + 1}: ${problem}`);
  });
  return segs;
}

/**
 * Canonical path from the raw URL tail after `/secrets/`, still percent-encoded. Accepts raw
 * slashes, per-segment encoding and whole-path `encodeURIComponent` (`/` as `%2F`) alike:
 * decoding happens exactly once, then the decoded text must already be canonical.
 * `%252F` decodes to the text `%2F`, which is refused because `%` is not an allowed character.
 */
export function canonicalSecretPath(raw: string): string {
  // A code point is at most 4 UTF-8 bytes = 12 characters encoded.
  if (raw.length > 12 * MAX_PATH_LENGTH) throw badRequest(`path: longer than MAX_PATH_LENGTH (${MAX_PATH_LENGTH} characters)`);
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw badRequest('path: malformed percent-encoding');
  }
  splitChecked(decoded, 'path');
  return decoded; // canonical contains no `%`, so canonicalSecretPath(canonical) === canonical
}

/**
 * Canonical `?prefix=` filter (already query-decoded: no percent-decoding here, a `%` is refused).
 * '' means everything; a trailing `/` is kept and means "inside this folder"; otherwise the same
 * rules as a path. A lone `/` is refused rather than guessed.
 */
export function secretPathPrefix(raw: string): string {
  if (raw === '') return '';
  const folder = raw.endsWith('/');
  const body = folder ? raw.slice(0, -1) : raw;
  if (body === '') throw badRequest('prefix: "/" alone is not a folder; omit prefix to list everything');
  splitChecked(body, 'prefix');
  return folder ? `${body}/` : body;
}

/**
 * Segment-aware prefix test on canonical values (never a plain string prefix):
 *   ''     matches every path;
 *   'api'  matches 'api' itself and everything under it ('api/x', 'api/x/y'), not 'apikeys/x';
 *   'api/' matches only what is under it ('api/x'), not 'api' itself.
 * A partial segment such as 'ap' therefore matches only a path that is exactly 'ap' (or under it).
 */
export function isUnderPrefix(path: string, prefix: string): boolean {
  if (prefix === '') return true;
  if (prefix.endsWith('/')) return path.startsWith(prefix);
  return path === prefix || path.startsWith(`${prefix}/`);
}
