// The monthly request quota on Postgres (domain/billing: quota-meter.ts over its statements): two
// meters, as two api processes, never admit past a free organization's 1,000 requests together,
// and the month's row records every admitted request with no budget left leased after both
// stopped; an unlimited organization is counted without leases. Run by request-quota.probe.ts
// (Node 24, ESM) against the migrated test database.
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { projectRoot } from '../helpers/stack.ts';

test('two processes, one quota of 1,000: exactly 1,000 admitted of 3,000, all recorded, nothing left leased; unlimited: counted', () => {
  const out = execFileSync('sh', [path.join(projectRoot, 'bin', 'node24'), path.join(projectRoot, 'test/integration/request-quota.probe.ts')], {
    cwd: projectRoot, env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL! },
  });
  expect(JSON.parse(out.toString())).toEqual({
    admitted: 1_000, refusedQuota: [1_000], row: { used: 1_000, leased: 1_000 }, afterUnlimited: { used: 1_025, leased: 1_000 },
  });
}, 120_000);
