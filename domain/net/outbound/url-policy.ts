// Which URLs an outbound request may target. Pure: no network access, so the same check gives a
// clear 400 when a URL is stored and runs again before every send. It judges both the raw text
// (tricks the WHATWG parser would silently repair: `\`, `user@`, percent-encoded or non-ASCII
// hosts) and what `new URL()` folds it into (the host that would actually be contacted).
import { checkAddress } from './address-policy.ts';
import { parseIpLiteral } from './ip-literal.ts';
import type { Exemptions } from './exemptions.ts';

export type UrlPolicyOptions = {
  exemptions: Exemptions;
  /** `http` is refused unless the caller's setting allows it (or the host is an exempted IP literal). */
  allowHttp?: boolean;
};

export type OutboundTarget = {
  url: URL;
  protocol: 'http:' | 'https:';
  /** Host name as folded by WHATWG URL (lower case, punycode), no brackets; used for DNS. */
  hostname: string;
  /** Name for TLS SNI and certificate checks (no trailing dot); undefined for IP literals. */
  servername: string | undefined;
  /** Canonical checked address when the host is an IP literal (then no DNS lookup happens). */
  literalAddress: string | null;
  literalExempt: boolean;
  port: number;
  /** Value of the Host header: the original host[:port]. */
  hostHeader: string;
  /** Path and query sent on the request line. */
  path: string;
};

export type UrlVerdict = { ok: true; target: OutboundTarget } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;

/**
 * The port decision, kept here and nowhere else: any port 1–65535 is allowed. The reference
 * restricts nothing, and the address policy already keeps requests off internal hosts; a port
 * allow-list (e.g. 80/443/8080/8443) would be a one-line change here.
 */
export function isPortAllowed(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

// Names that never denote a public host: RFC 6761 localhost, mDNS `.local`, cloud-internal
// `.internal` (metadata.google.internal, *.ec2.internal), RFC 8375 `home.arpa`.
const REFUSED_NAMES = ['localhost'];
const REFUSED_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa'];

function checkHostName(folded: string): string | null {
  const name = folded.endsWith('.') ? folded.slice(0, -1) : folded;
  if (name === '' || name.includes('..') || name.endsWith('.')) return 'malformed host name';
  if (REFUSED_NAMES.includes(name) || REFUSED_SUFFIXES.some((s) => name.endsWith(s))) {
    return `host name ${JSON.stringify(folded)} is internal`;
  }
  // A single label is completed by the resolver's search domains (`metadata` on GCP): never public.
  if (!name.includes('.')) return `host name ${JSON.stringify(folded)} has no domain`;
  return null;
}

/** Decides a URL without network access; the reason is fit for a 400 response. */
export function checkUrl(raw: unknown, options: UrlPolicyOptions): UrlVerdict {
  const refuse = (reason: string): UrlVerdict => ({ ok: false, reason });
  if (typeof raw !== 'string' || raw.length === 0) return refuse('URL is required');
  if (raw.length > MAX_URL_LENGTH) return refuse(`URL is longer than ${MAX_URL_LENGTH} characters`);
  // WHATWG strips or ignores these silently; a URL that needs repair is refused instead.
  if (/[\u0000-\u0020\u007f]/.test(raw)) return refuse('URL contains whitespace or control characters');
  if (raw.includes('\\')) return refuse('URL contains a backslash');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return refuse('only http and https URLs are allowed');
  if (!/^https?:\/\/[^/]/i.test(raw)) return refuse('URL must have the form scheme://host/...');
  const authority = raw.slice(scheme.length + 3).split(/[/?#]/, 1)[0];
  if (authority.includes('@')) return refuse('credentials in the URL are not allowed');
  if (authority.includes('%')) return refuse('percent-encoded host names are not allowed');

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('URL is not valid');
  }
  if (url.username !== '' || url.password !== '') return refuse('credentials in the URL are not allowed');
  const protocol = url.protocol as 'http:' | 'https:';
  const port = url.port === '' ? (protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!isPortAllowed(port)) return refuse(`port ${url.port} is not allowed`);

  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const lit = parseIpLiteral(hostname);
  let literalAddress: string | null = null;
  let literalExempt = false;
  if (lit.kind === 'scoped') return refuse('scoped IPv6 addresses are not allowed');
  if (lit.kind === 'ip') {
    const verdict = checkAddress(lit.address, options.exemptions);
    if (!verdict.allowed) return refuse(`address ${verdict.address} is not allowed: ${verdict.reason}`);
    literalAddress = verdict.address;
    literalExempt = verdict.exempt;
  } else {
    const nameProblem = checkHostName(hostname);
    if (nameProblem) return refuse(nameProblem);
    // `ｅxample.com` folds to `example.com`: a disguise. Real IDNs keep an `xn--` label.
    if (/[^\x00-\x7f]/.test(authority) && !hostname.split('.').some((l) => l.startsWith('xn--'))) {
      return refuse('non-ASCII host name folds to a different ASCII name');
    }
  }
  if (protocol === 'http:' && !options.allowHttp && !literalExempt) {
    return refuse('https is required');
  }
  return {
    ok: true,
    target: {
      url,
      protocol,
      hostname,
      servername: literalAddress === null ? hostname.replace(/\.$/, '') : undefined,
      literalAddress,
      literalExempt,
      port,
      hostHeader: url.host,
      path: `${url.pathname}${url.search}`,
    },
  };
}
