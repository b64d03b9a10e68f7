// Rate limits across two api processes (rate-limits-*.test.ts): requests of one client spread over
// both apis, and what a client may get in total (docs/operations.md, "Limits across replicas").
// The apis trust one proxy hop, so X-Forwarded-For names the client.
import { randomInt, randomUUID } from 'node:crypto';
import { call, uniqueEmail, type Res } from './api.ts';

/** The global limit the replicas run with: 100 per 100 s (window 100 s, lease 10). */
export const REPLICA_LIMIT_ENV = { TRUST_PROXY_HOPS: '1', RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '100', LOG_LEVEL: 'warn' };
export const GLOBAL = { points: 100, windowSeconds: 100, lease: 10 };

/** A client address no other test uses (100.96.0.0/12, random). */
export const freshIp = () => `100.${96 + randomInt(16)}.${randomInt(256)}.${1 + randomInt(254)}`;

export type Spread = { answers: Res[]; perApi: Res[][]; elapsedSeconds: number };

/** `n` requests from `ip`, ten at a time, alternating between the apis. */
export async function spread(bases: string[], n: number, ip: string, send: (base: string, ip: string, i: number) => Promise<Res>): Promise<Spread> {
  const started = Date.now();
  const perApi: Res[][] = bases.map(() => []);
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, (_x, j) => i + j);
    const answers = await Promise.all(batch.map((k) => send(bases[k % bases.length]!, ip, k)));
    batch.forEach((k, j) => perApi[k % bases.length]!.push(answers[j]!));
  }
  return { answers: perApi.flat(), perApi, elapsedSeconds: (Date.now() - started) / 1000 };
}

/** Windows of `windowSeconds` a run of `elapsedSeconds` can touch (a window starts at the client's first request). */
export const windowsTouched = (elapsedSeconds: number, windowSeconds: number) => 1 + Math.floor(elapsedSeconds / windowSeconds);

export const count = (rs: Res[], status: number) => rs.filter((r) => r.status === status).length;

/** 429 (or 503) as problem details with a whole-seconds Retry-After of at least 1. */
export function expectRetryProblem(r: Res, status: 429 | 503): void {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(expect.objectContaining({ type: expect.any(String), title: expect.any(String), status, detail: expect.any(String) }));
  expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

const via = (base: string, ip: string) => ({ base, headers: { 'x-forwarded-for': ip } });

export const health = (base: string, ip: string) => call('GET', '/v1/health', via(base, ip));
/** Opens an unknown link: 404 once the per-address and per-share limits let it through. */
export const openUnknownShare = (base: string, ip: string) => call('GET', `/v1/share/${randomUUID()}`, via(base, ip));
export const enroll = (base: string, ip: string, i: number) =>
  call('POST', '/v1/agents/enroll', { ...via(base, ip), body: { name: `replica-${i}`, human_email: uniqueEmail('replica-enroll') } });
export const createShareVia = (token: string, secretId: string) => (base: string, ip: string) =>
  call('POST', `/v1/secrets/${secretId}/share`, {
    ...via(base, ip), token, body: { recipient_type: 'anyone_with_link', expires_at: new Date(Date.now() + 86_400_000).toISOString() },
  });

/**
 * The global limit over both apis: at most the window's points plus the lease each other process
 * may still hold (docs/operations.md), and not less than the points minus what leases may strand.
 */
export async function expectGlobalLimitAcross(bases: string[]): Promise<void> {
  const s = await spread(bases, 3 * GLOBAL.points, freshIp(), health);
  const served = count(s.answers, 200);
  const slack = bases.length * (GLOBAL.lease - 1);
  expect(served).toBeLessThanOrEqual(GLOBAL.points * windowsTouched(s.elapsedSeconds, GLOBAL.windowSeconds) + slack);
  expect(served).toBeGreaterThanOrEqual(GLOBAL.points - slack);
  expect(count(s.answers, 200) + count(s.answers, 429)).toBe(s.answers.length);
  for (const answers of s.perApi) {
    expect(count(answers, 200)).toBeGreaterThan(0); // each api served part of the window…
    expectRetryProblem(answers.find((r) => r.status === 429)!, 429); // …and refused once it was spent
  }
}
