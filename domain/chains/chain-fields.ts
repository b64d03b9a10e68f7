// The rules of a chain's own fields, pure so that configuration (CHAIN_RPC_URLS), the commands and
// tests share one definition. Each check returns the reason it refuses, or null; callers decide
// how to report it (a 400 naming the field, a configuration error naming the variable). Also the
// parsing of `{identifier}`, which relies on these rules to tell its three forms apart.
import { isUuid } from '../ids.ts';

/** How `/v1/chains/{identifier}` addressed the chain. */
export type ChainKey = { by: 'id'; id: string } | { by: 'chain_id'; chainId: number } | { by: 'name'; name: string };

/**
 * Lower-case words joined by single hyphens, starting with a letter: never all digits and never
 * a UUID, so `/v1/chains/{identifier}` can tell a name from a chain_id or an internal id.
 */
export const CHAIN_NAME_RE = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
export const CHAIN_NAME_MAX = 64;
export const URL_MAX = 2048;

export function chainNameProblem(name: string): string | null {
  if (name.length === 0 || name.length > CHAIN_NAME_MAX) return `must be 1 to ${CHAIN_NAME_MAX} characters`;
  if (!CHAIN_NAME_RE.test(name)) return 'must be lower-case letters and digits in words joined by single hyphens, starting with a letter (e.g. base-sepolia)';
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(name)) return 'must not look like a UUID';
  return null;
}

/** JSON integers are exact up to 2^53 - 1; real EIP-155 chain ids are far below. */
export function chainIdProblem(chainId: number): string | null {
  return Number.isSafeInteger(chainId) && chainId > 0 ? null : `must be a positive integer of at most ${Number.MAX_SAFE_INTEGER}`;
}

export type EndpointKind = 'rpc' | 'ws' | 'explorer';
const SCHEMES: Record<EndpointKind, string[]> = { rpc: ['http:', 'https:'], ws: ['ws:', 'wss:'], explorer: ['http:', 'https:'] };

/**
 * An endpoint URL the service can use: absolute, of the kind's schemes, with a host. An RPC or
 * WebSocket URL may carry credentials (user:pass@, an API key in the path or query); an explorer
 * URL is shown to everyone and so may not carry userinfo. Addresses are not checked against the
 * outbound policy: chains are set by platform operators, who may run their own nodes on private
 * networks. The reason never repeats the URL, which may hold a key.
 */
export function endpointUrlProblem(kind: EndpointKind, url: string): string | null {
  const schemes = SCHEMES[kind];
  const expected = `must be an absolute ${schemes.map((s) => s.replace(':', '')).join(' or ')} URL`;
  if (url.length > URL_MAX) return `must be at most ${URL_MAX} characters`;
  if (/[\s\u0000-\u001f\u007f]/.test(url)) return `${expected} without spaces or control characters`;
  let u: URL;
  try { u = new URL(url); } catch { return expected; }
  if (!schemes.includes(u.protocol) || u.hostname === '') return expected;
  if (kind === 'explorer' && (u.username !== '' || u.password !== '')) return 'must not carry credentials (it is shown publicly)';
  return null;
}

/** The origin of an endpoint, for audit records and logs: never its path, query or credentials. */
export function endpointOrigin(url: string | null): string | null {
  if (url === null) return null;
  try { return new URL(url).origin; } catch { return 'invalid'; }
}

/**
 * How `{identifier}` names a chain: an internal id (UUID), a chain_id in decimal or 0x-hex (as
 * `eth_chainId` answers), or a name in any case. Null when it can be none of them.
 */
export function parseChainIdentifier(raw: string): ChainKey | null {
  const s = raw.trim();
  if (isUuid(s)) return { by: 'id', id: s.toLowerCase() };
  const numeric = /^[0-9]{1,16}$/.test(s) ? Number(s) : /^0x[0-9a-f]{1,14}$/i.test(s) ? Number.parseInt(s.slice(2), 16) : null;
  if (numeric !== null) return chainIdProblem(numeric) === null ? { by: 'chain_id', chainId: numeric } : null;
  const name = s.toLowerCase();
  return chainNameProblem(name) === null ? { by: 'name', name } : null;
}
