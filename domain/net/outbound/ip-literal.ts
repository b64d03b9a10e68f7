// Parses an IP address in any spelling a URL or a resolver can produce.
// IPv4 follows the WHATWG URL host parser (the same rules `new URL()` applies: `127.1`, `0x7f.1`,
// `012.0.0.1` octal, `2130706433`, a trailing dot), implemented here so a raw string is classified
// exactly as a URL would fold it, without trusting any one parser alone. IPv6 goes to ipaddr.js.
import ipaddr from 'ipaddr.js';
import type { ParsedIp } from '../ip.ts';

export type IpLiteral =
  | { kind: 'ip'; address: ParsedIp }
  | { kind: 'scoped' } // fe80::1%eth0: a zone id only makes sense on a local link
  | { kind: 'none' }; // not an IP literal: a host name (or garbage)

// Long inputs are names, not numbers; the bound also keeps the number parsing exact.
const MAX_LITERAL_LENGTH = 100;

function parseIpv4Part(part: string): number | null {
  let s = part;
  let radix = 10;
  if (s.length >= 2 && (s.startsWith('0x') || s.startsWith('0X'))) {
    s = s.slice(2);
    radix = 16;
  } else if (s.length >= 2 && s.startsWith('0')) {
    s = s.slice(1);
    radix = 8;
  }
  if (s === '') return 0; // WHATWG: `0x` alone is zero
  const digits = radix === 16 ? /^[0-9a-fA-F]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!digits.test(s)) return null;
  const n = parseInt(s, radix);
  return Number.isFinite(n) ? n : null;
}

/** WHATWG IPv4 parsing; null when the text is not an IPv4 address in any URL spelling. */
export function parseIpv4Whatwg(text: string): ipaddr.IPv4 | null {
  if (text.length === 0 || text.length > MAX_LITERAL_LENGTH) return null;
  const parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length > 4) return null;
  const numbers: number[] = [];
  for (const p of parts) {
    if (p === '') return null;
    const n = parseIpv4Part(p);
    if (n === null) return null;
    numbers.push(n);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255)) return null;
  if (last >= 256 ** (4 - numbers.length)) return null;
  let value = last;
  numbers.forEach((n, i) => { value += n * 256 ** (3 - i); });
  return new ipaddr.IPv4([(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
}

/** Classifies raw text: an IP literal (brackets allowed around IPv6), a scoped address, or not an IP. */
export function parseIpLiteral(raw: string): IpLiteral {
  if (raw.length === 0 || raw.length > MAX_LITERAL_LENGTH) return { kind: 'none' };
  let s = raw;
  const bracketed = s.startsWith('[') && s.endsWith(']');
  if (bracketed) s = s.slice(1, -1);
  if (s.includes(':')) {
    if (s.includes('%')) return { kind: 'scoped' };
    // ipaddr.js reads `::1.2.3.4` as `::ffff:1.2.3.4`; RFC 4291 (and WHATWG) read it as
    // `::102:304`. Rewrite a trailing dotted quad to two hex groups so both agree.
    const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
    if (dotted) {
      const b = dotted.slice(2, 6).map(Number);
      if (b.some((n, i) => n > 255 || String(n) !== dotted[i + 2])) return { kind: 'none' };
      s = `${dotted[1]}${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
    }
    if (!ipaddr.IPv6.isValid(s)) return { kind: 'none' };
    return { kind: 'ip', address: ipaddr.IPv6.parse(s) };
  }
  if (bracketed) return { kind: 'none' };
  const v4 = parseIpv4Whatwg(s);
  return v4 ? { kind: 'ip', address: v4 } : { kind: 'none' };
}
