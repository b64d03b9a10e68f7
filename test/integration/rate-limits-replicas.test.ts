// Issue 30 §1: every rate limit holds for the deployment, not per process. Two api processes on the
// stack's database keep their limits in Postgres (the default store without REDIS_URL): a client
// whose requests are spread over both gets no more than one limit (plus the stated lease bound).
// rate-limits-redis.test.ts does the same with Redis, and what happens when the store is down.
import { closeDb } from '../helpers/api.ts';
import { secondApiForFile } from '../helpers/second-api.ts';
import { ownerWithSecret } from '../helpers/share-fixtures.ts';
import {
  REPLICA_LIMIT_ENV, count, createShareVia, enroll, expectGlobalLimitAcross, expectRetryProblem, freshIp, openUnknownShare, spread, windowsTouched,
} from '../helpers/replica-limits.ts';

const a = secondApiForFile('limits-pg-a', REPLICA_LIMIT_ENV);
const b = secondApiForFile('limits-pg-b', REPLICA_LIMIT_ENV);
const bases = () => [a.url, b.url];

afterAll(async () => { await closeDb(); });

test('the global per-address limit holds across both apis', async () => {
  await expectGlobalLimitAcross(bases());
});

test('share opens per address: 60 per 12 s over both apis, exactly', async () => {
  const s = await spread(bases(), 90, freshIp(), openUnknownShare);
  const opened = count(s.answers, 404);
  expect(opened).toBeGreaterThanOrEqual(60);
  expect(opened).toBeLessThanOrEqual(60 * windowsTouched(s.elapsedSeconds, 12));
  expect(opened + count(s.answers, 429)).toBe(90);
  for (const answers of s.perApi) expectRetryProblem(answers.find((r) => r.status === 429)!, 429);
});

test('enrollment requests per address: 5 an hour over both apis', async () => {
  const s = await spread(bases(), 8, freshIp(), enroll);
  expect(count(s.answers, 201)).toBe(5);
  const refused = s.answers.filter((r) => r.status === 429);
  expect(refused).toHaveLength(3);
  for (const r of refused) expectRetryProblem(r, 429);
});

test('share creation per organization: 10 a minute over both apis', async () => {
  const { owner, secretId } = await ownerWithSecret('limits-pg-share', { path: 'svc/token', type: 'api_key', value: 'sk-replicas' });
  const s = await spread(bases(), 14, freshIp(), createShareVia(owner.token, secretId));
  const created = count(s.answers, 201);
  expect(created).toBeGreaterThanOrEqual(10);
  expect(created).toBeLessThanOrEqual(10 * windowsTouched(s.elapsedSeconds, 60));
  expect(created + count(s.answers, 429)).toBe(14);
  expectRetryProblem(s.answers.find((r) => r.status === 429)!, 429);
});
