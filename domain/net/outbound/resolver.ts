// Name resolution for the outbound client, injectable so tests can play DNS rebinding.
// The client calls it exactly once per send and connects to an address from this answer.
import dns from 'node:dns';

export type ResolvedAddress = { address: string; family: number };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), every address, in its order. */
export const systemResolver: Resolver = async (hostname) =>
  dns.promises.lookup(hostname, { all: true, order: 'verbatim' });
