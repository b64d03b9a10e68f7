// Keeping a binding's credential out of what the agent gets back. An outside API may echo what it
// received (a debugging endpoint, an error that quotes the Authorization header), so every
// spelling of the credential the service can predict is searched for in the answer's header names
// and values and its body, and replaced by `[REDACTED]`:
//   - the credential itself, JSON-escaped, percent-encoded (upper- and lower-case hex) and
//     form-encoded;
//   - its base64 and base64url, also where it sits inside a longer base64 text at any byte offset
//     (the characters that depend only on the credential's bytes);
//   - every value the service itself put on the wire (a Basic header's base64 of user:password).
// The same spellings of values a run read as secrets are masked in what an execution records.
// Pure; each replacement counts once in `redactions_applied`.
import { encodeSegment } from './request-path.ts';

export const REDACTED = '[REDACTED]';

/** Shorter credentials are refused: searching for them would match noise, so redaction could not be trusted. */
export const MIN_CREDENTIAL_LENGTH = 8;

const toUrlSafe = (b64: string) => b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** The base64 characters determined by `bytes` alone when they start `offset` bytes into a longer text. */
function base64Core(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
  const from = Math.ceil((8 * offset) / 6);
  const to = Math.floor((8 * (offset + bytes.length)) / 6);
  return encoded.slice(from, to);
}

/** Every spelling to search for, longest first. `onWire`: values the service sent that carry it. */
export function credentialForms(credential: string, onWire: readonly string[] = [], minLength = MIN_CREDENTIAL_LENGTH): string[] {
  const bytes = Buffer.from(credential, 'utf8');
  const pct = encodeURIComponent(credential);
  const forms = new Set<string>([
    credential,
    JSON.stringify(credential).slice(1, -1),
    pct,
    pct.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    new URLSearchParams({ x: credential }).toString().slice(2),
    bytes.toString('base64'),
    bytes.toString('base64').replace(/=+$/, ''),
    toUrlSafe(bytes.toString('base64')),
    encodeSegment(credential), // a request path's spelling: `:` and `@` stay as they are
    ...onWire,
  ]);
  for (const offset of [0, 1, 2]) {
    const core = base64Core(bytes, offset);
    forms.add(core);
    forms.add(toUrlSafe(core));
  }
  return [...forms].filter((f) => f.length >= minLength).sort((a, b) => b.length - a.length);
}

/** Known secrets shorter than this are not searched for (every record would be noise). */
const MIN_KNOWN_LENGTH = 4;

/**
 * Values the caller knows to be secret (what an automation run read with get_secret), in every
 * spelling above. They are masked in what an execution records, so shorter values count too:
 * masking a look-alike in a record costs nothing, keeping a secret there does.
 */
export function knownSecretForms(values: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const v of values) for (const f of credentialForms(v, [], MIN_KNOWN_LENGTH)) forms.add(f);
  return [...forms].sort((a, b) => b.length - a.length);
}
/** Every string in `value` (objects and arrays walked) with the forms masked. */
export function redactDeep<T>(value: T, forms: readonly string[]): T {
  if (forms.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactText(v, forms).text;
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [redactText(k, forms).text, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** `text` with every form replaced, and how many replacements were made. */
export function redactText(text: string, forms: readonly string[]): { text: string; count: number } {
  let out = text;
  let count = 0;
  for (const f of forms) {
    if (!out.includes(f)) continue;
    const parts = out.split(f);
    count += parts.length - 1;
    out = parts.join(REDACTED);
  }
  return { text: out, count };
}

/** Headers with names and values redacted. */
export function redactHeaders(headers: Record<string, string>, forms: readonly string[]): { headers: Record<string, string>; count: number } {
  const out: Record<string, string> = {};
  let count = 0;
  for (const [name, value] of Object.entries(headers)) {
    const n = redactText(name, forms);
    const v = redactText(value, forms);
    count += n.count + v.count;
    out[n.text] = v.text;
  }
  return { headers: out, count };
}
