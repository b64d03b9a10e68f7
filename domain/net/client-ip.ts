// The client address: the socket peer, unless the operator declares TRUST_PROXY_HOPS trusted
// proxies in front of us; then the address that many hops from the right of X-Forwarded-For.
// The left-most entry is attacker-controlled and never trusted.
import { normalizeIp } from './ip.ts';

export function clientIp(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, trustedHops: number): string {
  const peer = normalizeIp(socketAddress ?? '') ?? 'unknown';
  if (trustedHops <= 0 || forwardedFor === undefined) return peer;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const hops = header.split(',').map((h) => h.trim()).filter((h) => h.length > 0);
  // The peer itself is the nearest proxy; each trusted hop vouches for the entry to its left.
  const index = hops.length - trustedHops;
  if (index < 0) return normalizeIp(hops[0] ?? '') ?? peer;
  return normalizeIp(hops[index] ?? '') ?? peer;
}
