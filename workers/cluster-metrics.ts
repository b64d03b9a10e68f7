// Metrics of an api run as several processes (API_PROCESSES > 1): one scrape must see them all,
// not whichever child the kernel picks. The launcher serves METRICS_PORT itself and asks every
// child over the cluster's IPC channel for its registry (prom-client's AggregatorRegistry sums
// counters and histograms); a child must not listen on METRICS_PORT itself, only hand over its
// registry with shareMetricsWithPrimary().
import cluster from 'node:cluster';
import http from 'node:http';
import { AggregatorRegistry, type Registry } from 'prom-client';

/** In a cluster child: answer the launcher's metrics requests from these registries. */
export function shareMetricsWithPrimary(registries: Registry[]): void {
  if (!cluster.isWorker) return;
  AggregatorRegistry.setRegistries(registries);
  new AggregatorRegistry(); // installs the child's answering listener (idempotent)
}

/** In the launcher: GET /metrics on `port`, the sum over every child. Resolves with its stopper. */
export async function serveClusterMetrics(port: number, host: string): Promise<() => Promise<void>> {
  const registry = new AggregatorRegistry();
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') { res.writeHead(404).end(); return; }
    registry.clusterMetrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (e: Error) => res.writeHead(503, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${e.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, host, () => resolve()); });
  return () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
}
