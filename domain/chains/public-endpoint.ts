// What of a chain's RPC or WebSocket URL the public may see (GET /v1/chains is unauthenticated).
// Hosted node providers put the customer's key in the URL: in the path (Alchemy `/v2/<key>`,
// Infura `/v3/<key>`, QuickNode `/<token>/`), in the query (`?apikey=`) or as user:password@.
// A URL that may hold one is withheld from public answers, whole: a masked URL would not work and
// would only invite clients to call it. False positives merely hide a public URL, so the test errs
// that way. A URL pinned by CHAIN_RPC_URLS is deployment configuration and never public at all.
// Platform operators see every URL in full through the admin routes.

/** Path segments that read like a key or token rather than a word such as `rpc` or `v2`. */
function looksLikeSecret(segment: string): boolean {
  if (segment.length >= 24) return true;
  const letters = /[a-z]/i.test(segment);
  const digits = /[0-9]/.test(segment);
  return segment.length >= 12 && letters && digits;
}

/** True when the URL carries nothing that could be a credential. */
export function isPublicEndpoint(url: string): boolean {
  let u: URL;
  try { u = new URL(url); } catch { return false; }
  if (u.username !== '' || u.password !== '' || u.search !== '' || u.hash !== '') return false;
  return !u.pathname.split('/').some((s) => looksLikeSecret(decodeURIComponentSafe(s)));
}

/** The URL for a public answer, or null to omit it (pinned by configuration, or possibly secret). */
export function publicEndpoint(url: string | null, pinned = false): string | null {
  if (url === null || pinned) return null;
  return isPublicEndpoint(url) ? url : null;
}

function decodeURIComponentSafe(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}
