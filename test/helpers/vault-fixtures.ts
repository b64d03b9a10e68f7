// Shared fixtures of the vault and secret integration tests.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { checkResponse } from './response-check.ts';
import { call, apiUrl, type Account, type Res } from './api.ts';

export const SECRET_TYPES = [
  'generic', 'password', 'api_key', 'certificate', 'private_key', 'ssh_key', 'env', 'env_bundle',
  'file', 'note', 'credential', 'payment_card', 'gift_card',
] as const;

export const rnd = (tag: string) => `${tag}-${randomBytes(12).toString('hex')}`;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A request whose path reaches the server byte for byte (fetch would normalize dot segments). */
export function rawCall(method: string, rawPath: string, token: string, body?: unknown): Promise<Res> {
  const url = new URL(apiUrl());
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname, port: url.port, method, path: rawPath,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: any;
        try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = text; }
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
        const answer = { status: res.statusCode ?? 0, body: parsed, headers, text };
        checkResponse(apiUrl(), { method, url: rawPath, status: answer.status, contentType: res.headers['content-type'] ?? null, body: parsed, text })
          .then(() => resolve(answer), reject);
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export const isProblem = (r: Res, status: number, type?: string) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  if (type) expect(r.body.type).toBe(type);
};

export async function newVault(a: Account, name = rnd('vault')): Promise<string> {
  const r = await call('POST', '/v1/vaults', { token: a.token, body: { name, description: 'test vault' } });
  expect(r.status).toBe(201);
  return r.body.id;
}

export const secretUrl = (vaultId: string, p: string) => `/v1/vaults/${vaultId}/secrets/${p}`;

export async function put(a: Account, vaultId: string, p: string, body: Record<string, unknown>): Promise<Res> {
  return call('PUT', secretUrl(vaultId, p), { token: a.token, body });
}

export async function putOk(a: Account, vaultId: string, p: string, value: string, extra: Record<string, unknown> = {}): Promise<Res> {
  const r = await put(a, vaultId, p, { value, ...extra });
  expect(r.status).toBe(201);
  return r;
}

export async function listAll(a: Account, vaultId: string): Promise<string[]> {
  const r = await call('GET', `/v1/vaults/${vaultId}/secrets?limit=500`, { token: a.token });
  expect(r.status).toBe(200);
  return (r.body.secrets as { path: string }[]).map((s) => s.path);
}


export function regularFilesUnder(dir: string): string[] {
  let entries: fs.Dirent[];
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return []; }
  const out: string[] = [];
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...regularFilesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Files under the Postgres data directory that contain `needle` (binary search). */
export function filesContaining(root: string, needle: Buffer): string[] {
  const hits: string[] = [];
  for (const f of regularFilesUnder(root)) {
    let data: Buffer;
    try { data = fs.readFileSync(f); } catch { continue; } // vanished temp files
    if (data.indexOf(needle) !== -1) hits.push(f);
  }
  return hits;
}

/** Runs `fn` over `items`, `width` at a time. */
export async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    for (let i = next++; i < items.length; i = next++) await fn(items[i]!);
  }));
}
