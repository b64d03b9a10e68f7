// Run with Node 24 by test/unit/cluster-metrics.test.ts: a launcher serving METRICS_PORT over two
// cluster children whose counters differ; prints the scrape's counter lines, then exits.
import cluster from 'node:cluster';
import { Counter, Registry } from 'prom-client';
import { serveClusterMetrics, shareMetricsWithPrimary } from '../../workers/cluster-metrics.ts';

if (cluster.isPrimary) {
  const port = Number(process.argv[2]);
  const stop = await serveClusterMetrics(port, '127.0.0.1');
  let ready = 0;
  for (let i = 0; i < 2; i++) {
    // prom-client's own answers come over the same channel: count only the children's 'ready'.
    cluster.fork().on('message', async (m: unknown) => {
      if (m !== 'ready' || ++ready < 2) return;
      const r = await fetch(`http://127.0.0.1:${port}/metrics`);
      process.stdout.write(`${r.status}\n${(await r.text()).split('\n').filter((l) => l.startsWith('fixture_requests_total')).join('\n')}\n`);
      for (const w of Object.values(cluster.workers ?? {})) w?.kill();
      await stop();
    });
  }
} else {
  const registry = new Registry();
  new Counter({ name: 'fixture_requests_total', help: 'requests', registers: [registry] }).inc(cluster.worker!.id * 10);
  shareMetricsWithPrimary([registry]);
  process.send!('ready');
}
