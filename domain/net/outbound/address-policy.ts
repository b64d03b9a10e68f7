// Which IP addresses an outbound request may connect to. Only public unicast: ipaddr.js names
// every special range (private, loopback, link-local incl. 169.254.169.254, CGNAT, multicast,
// unspecified, broadcast, documentation, benchmarking, unique-local incl. fd00:ec2::254, ...),
// and anything it does not call 'unicast' is refused. IPv6 that carries an IPv4 address inside
// (NAT64, 6to4, Teredo, IPv4-compatible) is refused outright: the embedded address may be
// private and a gateway would forward to it. Exemptions (OUTBOUND_ALLOW_CIDRS) apply to the
// address itself (IPv4-mapped counts as IPv4), after the cloud metadata addresses.
import ipaddr from 'ipaddr.js';
import type { ParsedIp } from '../ip.ts';
import { parseIpLiteral } from './ip-literal.ts';
import { isExempt, type Exemptions } from './exemptions.ts';

export type AddressVerdict =
  | { allowed: true; address: string; exempt: boolean }
  | { allowed: false; address: string; reason: string };

type Block = { cidr: [ParsedIp, number]; reason: string };
const block = (cidr: string, reason: string): Block => ({ cidr: ipaddr.parseCIDR(cidr), reason });

// Checked before the generic range test so the reason names the actual risk.
const CLOUD_METADATA: Block[] = [
  block('169.254.169.254/32', 'cloud metadata address'),
  block('168.63.129.16/32', 'cloud metadata address (Azure)'), // public-looking, host-local
  block('100.100.100.200/32', 'cloud metadata address (Alibaba)'),
  block('fd00:ec2::254/128', 'cloud metadata address (AWS IPv6)'),
];

// IPv6 ranges that embed an IPv4 address a translator or tunnel would forward to; the embedded
// address is only named in the reason (the whole range is refused either way).
type Embedding = { cidr: [ParsedIp, number]; reason: string; inner: (p: number[]) => [number, number] };
const embeds = (cidr: string, reason: string, inner: Embedding['inner']): Embedding =>
  ({ cidr: ipaddr.parseCIDR(cidr), reason, inner });
const EMBEDS_IPV4: Embedding[] = [
  embeds('64:ff9b::/96', 'NAT64 address', (p) => [p[6], p[7]]),
  embeds('64:ff9b:1::/48', 'NAT64 (local-use) address', (p) => [p[6], p[7]]),
  embeds('2002::/16', '6to4 address', (p) => [p[1], p[2]]),
  embeds('2001::/32', 'Teredo address', (p) => [~p[6] & 0xffff, ~p[7] & 0xffff]), // client, obfuscated
  embeds('::/96', 'IPv4-compatible IPv6 address', (p) => [p[6], p[7]]),
];

// Globally routed IPv6 lives in 2000::/3; anything outside it is not a public host.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

const v4Text = ([hi, lo]: [number, number]) =>
  ipaddr.fromByteArray([hi >> 8, hi & 255, lo >> 8, lo & 255]).toString();

const RANGE_NAMES: Record<string, string> = {
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local (fc00::/7)',
  reserved: 'reserved (documentation, benchmarking or future use)',
  rfc6145: 'IPv4-translated',
  deprecatedSiteLocal: 'site-local',
};
const describeRange = (range: string) => `${RANGE_NAMES[range] ?? range} address`;

/** Decides one address. `raw` may be any spelling: `127.1`, `0x7f.1`, `[::ffff:7f00:1]`, ... */
export function checkAddress(raw: string | ParsedIp, exemptions: Exemptions): AddressVerdict {
  let parsed: ParsedIp;
  if (typeof raw === 'string') {
    const lit = parseIpLiteral(raw);
    if (lit.kind === 'scoped') return { allowed: false, address: raw, reason: 'scoped (zone id) address' };
    if (lit.kind === 'none') return { allowed: false, address: raw, reason: 'not an IP address' };
    parsed = lit.address;
  } else {
    parsed = raw;
  }
  // IPv4-mapped IPv6 is the IPv4 address on a dual-stack socket: classify (and connect) as IPv4.
  const a: ParsedIp = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
  const address = a.toString();
  const refuse = (reason: string): AddressVerdict => ({ allowed: false, address, reason });
  // Metadata first: no exemption (not even a broad one like 169.254.0.0/16) opens it.
  for (const b of CLOUD_METADATA) {
    if (a.kind() === b.cidr[0].kind() && a.match(b.cidr)) return refuse(b.reason);
  }
  if (isExempt(address, exemptions)) return { allowed: true, address, exempt: true };
  const range = a.range();
  if (range === 'loopback' || range === 'unspecified') return refuse(`${describeRange(range)}`); // ::1, :: sit in ::/96
  if (a.kind() === 'ipv6') {
    const v6 = a as ipaddr.IPv6;
    for (const e of EMBEDS_IPV4) {
      if (v6.match(e.cidr)) return refuse(`${e.reason} (embeds ${v4Text(e.inner(v6.parts))})`);
    }
  }
  if (range !== 'unicast') return refuse(describeRange(range));
  if (a.kind() === 'ipv6' && !(a as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return refuse('not global unicast IPv6');
  return { allowed: true, address, exempt: false };
}
