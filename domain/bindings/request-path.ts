// The path an agent asks a binding to call, made canonical the way a server would read it, and
// the binding's path patterns. Pure: unit-tested on its own (test/unit/binding-path.test.ts).
//
// A path is decoded once, segment by segment, and refused (never repaired) when a server could
// read it as something other than what the patterns were matched against:
//   - `.`/`..` segments, also percent-encoded (`%2e%2e`), with a `;param` (`..;` is `..` to
//     Tomcat) or in compatibility forms that fold to dots (U+FF0E);
//   - empty segments (`//`), encoded slashes or backslashes (`%2f`, `%5c`), raw backslashes;
//   - double encoding (`%252e`), malformed encoding, invalid UTF-8, control characters, raw
//     whitespace, `?` and `#` (the query goes in `query`, fragments are never sent).
// What is sent is re-encoded from the decoded segments, so the request carries exactly the path
// that was matched, under the base URL's own path.
//
// Patterns use the project's segment matcher (domain/paths/glob.ts): `*` one segment, `**` any
// depth (including none), `*` inside a segment any run of characters within it. A pattern is a
// decoded path: literal text is compared with decoded segments, case-sensitively. One trailing
// slash of the request is not a segment: `/items/` matches `/items` (and is sent as written).
import { globMatches, type CompiledGlob } from '../paths/glob.ts';

export const MAX_REQUEST_PATH_LENGTH = 2048;
const MAX_SEGMENTS = 64;
const MAX_PATTERN_LENGTH = 512;

export type RequestPath = {
  /** The decoded segments; [] for the root. */
  segments: string[];
  trailingSlash: boolean;
  /** What goes on the request line after the base path: `/` + re-encoded segments. */
  encoded: string;
};

export type PathVerdict = { ok: true; path: RequestPath } | { ok: false; reason: string };

const RAW_FORBIDDEN = /[\u0000-\u0020\u007f]/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const ENCODED_OCTET = /%[0-9a-fA-F]{2}/;
const BAD_PERCENT = /%(?![0-9a-fA-F]{2})/;
const DOTS_OR_EMPTY = /^\.*$/;

/** Why one raw (still encoded) segment cannot be sent, or its decoded text. */
function decodeSegment(raw: string): { ok: true; text: string } | { ok: false; reason: string } {
  const no = (reason: string) => ({ ok: false as const, reason });
  if (raw === '') return no('empty segment (double slash)');
  if (BAD_PERCENT.test(raw)) return no('malformed percent-encoding');
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    return no('percent-encoding is not valid UTF-8');
  }
  if (ENCODED_OCTET.test(text)) return no('double percent-encoding is not allowed');
  if (CONTROL.test(text)) return no('control characters are not allowed');
  const folded = text.normalize('NFKC');
  if (/[/\\]/.test(text) || /[/\\]/.test(folded)) return no('encoded slashes and backslashes are not allowed');
  // `..;x` is `..` to servers that strip path parameters; full-width dots fold to dots.
  if (DOTS_OR_EMPTY.test(folded.split(';')[0]!)) return no('dot segments (".", "..") are not allowed');
  return { ok: true, text };
}

/** Percent-encodes a decoded segment; `:` and `@` stay readable (RFC 3986 pchar). */
export function encodeSegment(s: string): string {
  return encodeURIComponent(s).replace(/%3A/gi, ':').replace(/%40/gi, '@');
}

/** The canonical form of an agent's request path, or why it is refused. */
export function canonicalRequestPath(raw: string): PathVerdict {
  const no = (reason: string): PathVerdict => ({ ok: false, reason });
  if (raw.length === 0) return no('path is empty');
  if (raw.length > MAX_REQUEST_PATH_LENGTH) return no(`path is longer than ${MAX_REQUEST_PATH_LENGTH} characters`);
  if (RAW_FORBIDDEN.test(raw)) return no('whitespace and control characters must be percent-encoded');
  if (raw.includes('\\')) return no('backslashes are not allowed');
  if (raw.includes('?')) return no('send the query string in `query`, not in the path');
  if (raw.includes('#')) return no('fragments are not allowed');
  let body = raw.startsWith('/') ? raw.slice(1) : raw;
  const trailingSlash = body.endsWith('/');
  if (trailingSlash) body = body.slice(0, -1);
  if (body === '' && raw.length > 1) return no('empty segment (double slash)');
  const segments: string[] = [];
  if (body !== '') {
    const parts = body.split('/');
    if (parts.length > MAX_SEGMENTS) return no(`more than ${MAX_SEGMENTS} segments`);
    for (const [i, part] of parts.entries()) {
      const d = decodeSegment(part);
      if (!d.ok) return no(`segment ${i + 1}: ${d.reason}`);
      segments.push(d.text);
    }
  }
  const encoded = `/${segments.map(encodeSegment).join('/')}${trailingSlash && segments.length > 0 ? '/' : ''}`;
  return { ok: true, path: { segments, trailingSlash, encoded } };
}

/** A compiled path pattern, or why the text is not one (fit for a 400 naming the field). */
export function compilePathPattern(raw: string): { ok: true; glob: CompiledGlob } | { ok: false; reason: string } {
  const no = (reason: string) => ({ ok: false as const, reason });
  if (raw.length === 0 || raw.length > MAX_PATTERN_LENGTH) return no(`must be 1 to ${MAX_PATTERN_LENGTH} characters`);
  if (RAW_FORBIDDEN.test(raw) || CONTROL.test(raw)) return no('whitespace and control characters are not allowed');
  if (/[?#%\\]/.test(raw)) return no('`?`, `#`, `%` and backslashes are not allowed (a pattern is a decoded path)');
  let body = raw.startsWith('/') ? raw.slice(1) : raw;
  if (body.endsWith('/')) body = body.slice(0, -1);
  const out: string[] = [];
  if (body !== '') {
    const segs = body.split('/');
    if (segs.length > MAX_SEGMENTS) return no(`more than ${MAX_SEGMENTS} segments`);
    for (const [i, seg] of segs.entries()) {
      if (seg === '') return no(`segment ${i + 1}: empty segment (double slash)`);
      if (DOTS_OR_EMPTY.test(seg.normalize('NFKC').split(';')[0]!)) return no(`segment ${i + 1}: dot segments are not allowed`);
      if (seg.includes('**') && seg !== '**') return no(`segment ${i + 1}: "**" must be a whole segment`);
      if (seg === '**' && out[out.length - 1] === '**') continue;
      out.push(seg);
    }
  }
  return { ok: true, glob: Object.freeze({ pattern: `/${out.join('/')}`, segments: Object.freeze(out) }) };
}

/** Does the canonical path match the pattern? */
export function pathMatches(g: CompiledGlob, p: RequestPath): boolean {
  if (p.segments.length === 0) return g.segments.every((s) => s === '**');
  return globMatches(g, p.segments.join('/'));
}

/** Does it match any of the patterns (raw texts, already validated when stored)? */
export function pathAllowed(patterns: readonly string[], p: RequestPath): boolean {
  return patterns.some((raw) => {
    const c = compilePathPattern(raw);
    return c.ok && pathMatches(c.glob, p);
  });
}
