// Issue 30 §1 with Redis (REDIS_URL set: the default store then): two api processes share one real
// redis-server, so a client spread over both gets one limit. With Redis stopped, the global limit
// and share creation fail open (counted per process: the API stays up), share opens and enrollment
// requests fail closed (503 with Retry-After); with Redis back, the shared limits return.
import fs from 'node:fs';
import { Redis } from 'ioredis';
import { closeDb, eventually } from '../helpers/api.ts';
import { secondApiForFile } from '../helpers/second-api.ts';
import { ownerWithSecret } from '../helpers/share-fixtures.ts';
import { RedisServer } from '../helpers/redis-server.ts';
import {
  REPLICA_LIMIT_ENV, count, createShareVia, enroll, expectGlobalLimitAcross, expectRetryProblem, freshIp, health, openUnknownShare, spread,
} from '../helpers/replica-limits.ts';

let redis: RedisServer | undefined;
beforeAll(async () => { redis = await RedisServer.start(); }, 30_000);
afterAll(async () => {
  await redis?.stop();
  await closeDb();
});

// Started after Redis (the env is read when each api starts).
const a = secondApiForFile('limits-redis-a', () => ({ ...REPLICA_LIMIT_ENV, REDIS_URL: redis!.url }));
const b = secondApiForFile('limits-redis-b', () => ({ ...REPLICA_LIMIT_ENV, REDIS_URL: redis!.url }));
const bases = () => [a.url, b.url];

test('the global per-address limit holds across both apis, counted in Redis', async () => {
  await expectGlobalLimitAcross(bases());
  const client = new Redis(redis!.url);
  try {
    expect((await client.keys('rl:global:100/100s:*')).length).toBeGreaterThan(0);
  } finally {
    client.disconnect();
  }
});

test('share opens per address and enrollment requests per address hold across both apis', async () => {
  const opens = await spread(bases(), 90, freshIp(), openUnknownShare);
  expect(count(opens.answers, 404)).toBeGreaterThanOrEqual(60);
  expect(count(opens.answers, 404)).toBeLessThanOrEqual(60 * (1 + Math.floor(opens.elapsedSeconds / 12)));
  expectRetryProblem(opens.answers.find((r) => r.status === 429)!, 429);

  const enrollments = await spread(bases(), 8, freshIp(), enroll);
  expect(count(enrollments.answers, 201)).toBe(5);
  expect(count(enrollments.answers, 429)).toBe(3);
});

test('with Redis down: the global limit and share creation fail open, share opens and enrollment fail closed; then back', async () => {
  const { owner, secretId } = await ownerWithSecret('limits-redis-share', { path: 'svc/token', type: 'api_key', value: 'sk-redis' });
  const createShare = createShareVia(owner.token, secretId);
  // An address that has spent its global window while Redis is up.
  const spent = freshIp();
  const before = await spread(bases(), 150, spent, health);
  for (const answers of before.perApi) expect(count(answers, 429)).toBeGreaterThan(0);

  await redis!.stop();
  for (const base of bases()) {
    // Fail open: each process counts the window on its own, so the API keeps answering.
    expect((await health(base, freshIp())).status).toBe(200);
    expect((await createShare(base, freshIp())).status).toBe(201);
    // Fail closed: public routes refuse rather than count per process.
    const open = await openUnknownShare(base, freshIp());
    expectRetryProblem(open, 503);
    expect(open.body.detail).toMatch(/rate limits/i);
    expectRetryProblem(await enroll(base, freshIp(), 0), 503);
  }
  // A window a process already saw full stays refused there until it ends: failing open does not
  // forget what the store said.
  for (const base of bases()) expectRetryProblem(await health(base, spent), 429);

  await redis!.restart();
  for (const base of bases()) {
    await eventually(`share opens answering again on ${base}`, async () => ((await openUnknownShare(base, freshIp())).status === 404 ? true : undefined), 20_000);
  }
  // Shared again: a fresh address is limited across both apis (Redis restarted empty).
  await expectGlobalLimitAcross(bases());
  // Operators see both transitions in each api's log.
  for (const log of [a.log, b.log]) {
    const text = fs.readFileSync(log, 'utf8');
    expect(text).toMatch(/rate limit store unreachable/);
    expect(text).toMatch(/rate limit store reachable again/);
  }
});
