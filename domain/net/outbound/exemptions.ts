// Address ranges exempted from the address policy (OUTBOUND_ALLOW_CIDRS), so tests and local
// development can reach 127.0.0.1. Empty by default: production refuses every non-public address.
import { parseCidr, cidrContains, formatCidr, type Cidr } from '../ip.ts';

export type Exemptions = readonly Cidr[];

export const NO_EXEMPTIONS: Exemptions = Object.freeze([]);

/** Parses CIDR texts (`127.0.0.0/8`, `::1/128`); throws naming the first invalid entry. */
export function parseExemptions(cidrs: readonly string[]): Exemptions {
  return Object.freeze(cidrs.map((text) => {
    const c = parseCidr(text);
    if (!c) throw new Error(`not a CIDR: ${JSON.stringify(text)}`);
    return c;
  }));
}

/** Canonical text of the exemptions, for the start-up log line. */
export function describeExemptions(exemptions: Exemptions): string[] {
  return exemptions.map(formatCidr);
}

/** `canonicalIp` is an address as ipaddr.js prints it; IPv4-mapped IPv6 counts as its IPv4. */
export function isExempt(canonicalIp: string, exemptions: Exemptions): boolean {
  return exemptions.some((c) => cidrContains(c, canonicalIp));
}

/** Says at start which private ranges outbound requests may reach (a setting for tests and development). */
export function logExemptions(cidrs: string[], log: { warn(msg: string, fields?: Record<string, unknown>): void }): void {
  if (cidrs.length > 0) log.warn('OUTBOUND_ALLOW_CIDRS is set: outbound requests may reach these private ranges', { ranges: describeExemptions(parseExemptions(cidrs)) });
}
