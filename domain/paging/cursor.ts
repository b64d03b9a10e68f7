// The one cursor codec of every paginated list. A cursor is opaque to callers: base64url of the
// JSON array [list kind, key of the last item served]. Decoding is as strict as any other input
// (the api's query schemas decode it while validating, api/input/fields.ts): canonical base64url,
// UTF-8 JSON, this list's kind, and a key that passes the list's own schema, so a key that reaches
// a query is one the database can compare (no NUL byte, no integer past bigint). Anything else is
// `null`, which the api answers with a 400 naming `cursor`.
import type { z } from 'zod';

export type CursorCodec<K> = {
  /** The list this codec pages (a cursor of another list is refused). */
  kind: string;
  encode(key: K): string;
  /** The key, or null when `text` is not a cursor this codec wrote. Never throws. */
  decode(text: string): K | null;
};

const MAX_CURSOR_LENGTH = 2048;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function cursorCodec<K>(kind: string, key: z.ZodType<K>): CursorCodec<K> {
  return {
    kind,
    encode: (k) => Buffer.from(JSON.stringify([kind, k]), 'utf8').toString('base64url'),
    decode(text) {
      if (text.length === 0 || text.length > MAX_CURSOR_LENGTH || !BASE64URL.test(text)) return null;
      const bytes = Buffer.from(text, 'base64url');
      // Lenient decoders accept several spellings of the same bytes; only the one we write is a cursor.
      if (bytes.toString('base64url') !== text) return null;
      let parsed: unknown;
      try {
        parsed = JSON.parse(utf8.decode(bytes));
      } catch {
        return null;
      }
      if (!Array.isArray(parsed) || parsed.length !== 2 || parsed[0] !== kind) return null;
      const r = key.safeParse(parsed[1]);
      return r.success ? r.data : null;
    },
  };
}

/** Text a key may hold: no control characters (NUL breaks a Postgres text parameter), well-formed UTF-16. */
export const isCursorText = (s: string): boolean => !/[\u0000-\u001f\u007f]/.test(s) && s.isWellFormed();

const BIGINT_MAX = 9_223_372_036_854_775_807n;
/** A non-negative bigint column's value as decimal text (sequence numbers, microsecond times). */
export const isBigintText = (s: string): boolean => /^\d{1,19}$/.test(s) && BigInt(s) <= BIGINT_MAX;
