// The JSON call every benchmark section makes to set things up (never on a measured path's hot loop
// unless the section says so): throws with the status and body on anything but 2xx.
export async function api(baseUrl: string, method: string, p: string, token: string | null, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extraHeaders };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${baseUrl}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}
