// IP parsing shared by the client-IP stage, the IP filter and IP-rule validation.
// ipaddr.js is used because it classifies odd spellings correctly (see STACK-NOTES).
import ipaddr from 'ipaddr.js';

export type ParsedIp = ipaddr.IPv4 | ipaddr.IPv6;

/** Canonical text of an address: IPv4-mapped IPv6 becomes IPv4; zone ids and brackets are dropped. */
export function normalizeIp(raw: string): string | null {
  let s = raw.trim();
  if (s.startsWith('[') && s.includes(']')) s = s.slice(1, s.indexOf(']'));
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  // Only strict textual forms: a client address never arrives as `127.1` or `0x7f.1`.
  if (!ipaddr.IPv4.isValidFourPartDecimal(s) && !ipaddr.IPv6.isValid(s)) return null;
  try {
    return ipaddr.process(s).toString();
  } catch {
    return null;
  }
}

export type Cidr = { address: ParsedIp; prefix: number; kind: 'ipv4' | 'ipv6' };

/** Parses `a.b.c.d/n` or `x::y/n` (a bare address means a single host); null when invalid. */
export function parseCidr(raw: string): Cidr | null {
  const s = raw.trim();
  if (s.length === 0 || s.length > 64) return null;
  const slash = s.indexOf('/');
  const addrText = slash >= 0 ? s.slice(0, slash) : s;
  const prefixText = slash >= 0 ? s.slice(slash + 1) : undefined;
  const isV4 = ipaddr.IPv4.isValidFourPartDecimal(addrText);
  if (!isV4 && !ipaddr.IPv6.isValid(addrText)) return null;
  if (!isV4 && addrText.includes('%')) return null;
  const max = isV4 ? 32 : 128;
  let prefix = max;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText)) return null;
    prefix = Number(prefixText);
    if (prefix > max) return null;
  }
  let address: ParsedIp = ipaddr.parse(addrText);
  // An IPv4-mapped IPv6 block is stored as the IPv4 block it denotes.
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    address = (address as ipaddr.IPv6).toIPv4Address();
    prefix -= 96;
  }
  return { address, prefix, kind: address.kind() };
}

/** The canonical text of a CIDR block: network address (host bits cleared) and prefix. */
export function formatCidr(c: Cidr): string {
  const network = c.kind === 'ipv4'
    ? ipaddr.IPv4.networkAddressFromCIDR(`${c.address.toString()}/${c.prefix}`)
    : ipaddr.IPv6.networkAddressFromCIDR(`${c.address.toString()}/${c.prefix}`);
  return `${network.toString()}/${c.prefix}`;
}

export function cidrContains(c: Cidr, ip: string): boolean {
  let addr: ParsedIp;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  if (addr.kind() !== c.kind) return false;
  return addr.match([c.address, c.prefix] as [ParsedIp, number]);
}
