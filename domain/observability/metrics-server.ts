// GET /metrics on a listener of its own (METRICS_PORT, on 127.0.0.1 unless METRICS_HOST says
// otherwise): the api's port never serves it, so a scraper needs no credentials and the public
// never sees it. One per process; the Temporal SDK's metrics of a worker in this process are
// fetched from its own exporter and appended, so one scrape target covers the process.
import http from 'node:http';
import type { Logger } from '../log.ts';
import { externalMetrics, registry } from './metrics.ts';

const EXTERNAL_TIMEOUT_MS = 2_000;

export type MetricsServer = { url: string; stop: () => Promise<void> };

export async function startMetricsServer(host: string, port: number, log: Logger): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'text/plain' }).end();
      return;
    }
    metricsText().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (e: unknown) => {
        log.warn('metrics scrape failed', { error: String(e) });
        res.writeHead(500, { 'content-type': 'text/plain' }).end();
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`;
  log.info('metrics listening', { url });
  return {
    url,
    stop: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/** Our registry's text, then each external exporter's (a note in its place when it does not answer). */
export async function metricsText(): Promise<string> {
  const parts = [await registry.metrics()];
  for (const [name, url] of externalMetrics()) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(EXTERNAL_TIMEOUT_MS) });
      if (!r.ok) throw new Error(`status ${r.status}`);
      parts.push(await r.text());
    } catch (e) {
      parts.push(`# ${name} metrics unavailable: ${e instanceof Error ? e.message : String(e)}\n`);
    }
  }
  return parts.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('');
}
