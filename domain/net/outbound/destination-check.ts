// Checking a destination when it is stored (a webhook's URL, a platform app's webhook URL): the
// scheme, the host name, and every address it resolves to now. The outbound client checks again
// before every send, since DNS can change in between; this check gives the caller a 400 at once
// instead of deliveries that can never go.
import { invalidField } from '../../errors.ts';
import { checkAddress } from './address-policy.ts';
import type { Exemptions } from './exemptions.ts';
import type { Resolver, ResolvedAddress } from './resolver.ts';
import { checkUrl } from './url-policy.ts';

/** How long a destination's name may take to resolve before the URL is refused. */
export const RESOLVE_TIMEOUT_MS = 3000;

/** A 400 naming `field` unless `url` is an HTTPS URL whose host resolves only to allowed addresses. */
export async function checkStoredDestination(url: string, field: string, o: { exemptions: Exemptions; resolver: Resolver }): Promise<void> {
  const verdict = checkUrl(url, { exemptions: o.exemptions, allowHttp: false });
  if (!verdict.ok) throw invalidField(field, verdict.reason);
  const t = verdict.target;
  if (t.literalAddress !== null) return;
  const addresses = await resolveWithin(o.resolver, t.hostname, RESOLVE_TIMEOUT_MS);
  if (addresses === 'timeout') throw invalidField(field, `host name ${JSON.stringify(t.hostname)} did not resolve within ${RESOLVE_TIMEOUT_MS / 1000} s`);
  if (addresses.length === 0) throw invalidField(field, `host name ${JSON.stringify(t.hostname)} does not resolve`);
  for (const a of addresses) {
    const v = checkAddress(a.address, o.exemptions);
    if (!v.allowed) throw invalidField(field, `host name ${JSON.stringify(t.hostname)} resolves to ${v.address}, which is not allowed: ${v.reason}`);
  }
}

/** The addresses, or 'timeout'; a failed lookup is no address at all. */
async function resolveWithin(resolver: Resolver, hostname: string, ms: number): Promise<ResolvedAddress[] | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), ms); });
  try {
    return await Promise.race([resolver(hostname).catch((): ResolvedAddress[] => []), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
