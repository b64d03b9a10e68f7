// With API_PROCESSES > 1 one scrape of METRICS_PORT sums every api process (workers/cluster-metrics.ts).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../db/free-port.ts';

test('the launcher serves the sum of its children\'s registries', async () => {
  const root = path.resolve(__dirname, '..', '..');
  const out = execFileSync('sh', [path.join(root, 'bin', 'node24'), path.join(root, 'test', 'helpers', 'cluster-metrics-fixture.ts'), String(await freePort())], { cwd: root, encoding: 'utf8', timeout: 30_000 });
  expect(out.trim().split('\n')).toEqual(['200', 'fixture_requests_total 30']);
}, 40_000);
