// Helpers of the sharing tests: opening a share from a chosen loopback source address (each
// address has its own per-IP budget, and IP allowlists need a known source), creating shares, and
// an organization with one secret to share.
import http from 'node:http';
import { checkResponse } from './response-check.ts';
import { call, apiUrl, signup, type Account, type Res } from './api.ts';
import { newVault, putOk } from './vault-fixtures.ts';

export type OpenOpts = { ip: string; passphrase?: string; token?: string; method?: 'GET' | 'POST'; body?: unknown };

/** Opens a share from the source address `ip` (GET /v1/share/{id}, or POST /v1/shares/{id}/access). */
export function openShare(linkId: string, o: OpenOpts): Promise<Res> {
  const url = new URL(apiUrl());
  const method = o.method ?? 'GET';
  const path = method === 'GET' ? `/v1/share/${linkId}` : `/v1/shares/${linkId}/access`;
  const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
  const headers: Record<string, string> = {};
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.passphrase !== undefined) headers['x-share-passphrase'] = o.passphrase;
  if (payload !== undefined) { headers['content-type'] = 'application/json'; headers['content-length'] = String(Buffer.byteLength(payload)); }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers, localAddress: o.ip, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: any;
        try { body = text ? JSON.parse(text) : undefined; } catch { body = text; }
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
        const answer: Res = { status: res.statusCode ?? 0, body, headers: h, text };
        checkResponse(apiUrl(), { method, url: path, status: answer.status, contentType: res.headers['content-type'] ?? null, body, text })
          .then(() => resolve(answer), reject);
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();
export const DAY = 86_400_000;

/** POST /v1/secrets/{id}/share, expiring in a day unless the body says otherwise. */
export const createShare = (token: string, secretId: string, body: Record<string, unknown>) =>
  call('POST', `/v1/secrets/${secretId}/share`, { token, body: { expires_at: inFuture(DAY), ...body } });

/** A share that must be created: 201, its share_url ending with /v1/share/<id>. */
export async function shareOk(token: string, secretId: string, body: Record<string, unknown>): Promise<any> {
  const r = await createShare(token, secretId, body);
  expect(r.status).toBe(201);
  expect(r.body.share_url.endsWith(`/v1/share/${r.body.id}`)).toBe(true);
  return r.body;
}

export type OwnerWithSecret = { owner: Account; vaultId: string; secretId: string; path: string; value: string };

/** A fresh organization (its own share-creation budget) with one secret. */
export async function ownerWithSecret(tag: string, s: { path: string; type: string; value: string }): Promise<OwnerWithSecret> {
  const owner = await signup(tag);
  const vaultId = await newVault(owner);
  const w = await putOk(owner, vaultId, s.path, s.value, { type: s.type });
  return { owner, vaultId, secretId: w.body.id, path: s.path, value: s.value };
}
