// insertDeliveries answers whether a dispatch pass has deliveries to batch and start, so a pass
// over events no webhook subscribes to skips the rest (webhook-subscriber.ts); a pass repeated
// after stopping half-way still finds its work. Run against the migrated test database by
// delivery-pending.probe.ts (Node 24, ESM) in a transaction it rolls back.
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { projectRoot } from '../helpers/stack.ts';

test('no subscriber: nothing to batch; inserted, claimed or unstarted: work left; every batch started: none', () => {
  const out = execFileSync('sh', [path.join(projectRoot, 'bin', 'node24'), path.join(projectRoot, 'test/integration/delivery-pending.probe.ts')], {
    cwd: projectRoot, env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL! },
  });
  expect(JSON.parse(out.toString())).toEqual({
    unsubscribed: false, subscribedFirst: true, afterInsertOnly: true, afterClaim: true, batches: 1, afterStart: false, mixed: false,
  });
}, 60_000);
