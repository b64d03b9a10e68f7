// `API_PROCESSES` api processes on one port (workers/api.ts). One api process runs on one core
// (Koa's floor is ~88 µs of CPU a request), so this process forks one per core with node's
// cluster module; each child binds the port itself with SO_REUSEPORT and the kernel spreads
// connections over them, with no hop through this process. The children are replicas like any
// other: every cache an api keeps is checked against Postgres when used or dropped over
// LISTEN/NOTIFY (docs/operations.md), so nothing here shares state. A child that dies is replaced;
// a stop signal drains every child (each stops as a single api does) before this process exits.
import { loadObservabilitySettings } from '../domain/observability/settings.ts';
import cluster, { type Worker } from 'node:cluster';
import net from 'node:net';
import type { Config } from '../domain/config.ts';
import { createLogger } from '../domain/log.ts';

/** What a child tells this process once it listens. */
export type ApiChildReady = { kind: 'api-listening'; url: string };

const isReady = (m: unknown): m is ApiChildReady => typeof m === 'object' && m !== null && (m as ApiChildReady).kind === 'api-listening';

/** A child that keeps dying is restarted at most this often, doubling from one second. */
const MAX_RESTART_DELAY_MS = 30_000;
/** A child that ran this long before dying is restarted at once, and the delay starts over. */
const HEALTHY_RUN_MS = 60_000;

/** In a cluster child: tells the primary where it listens. A no-op in a single process. */
export function reportListening(url: string): void {
  if (cluster.isWorker) process.send?.({ kind: 'api-listening', url } satisfies ApiChildReady);
}

/**
 * Forks `config.apiProcesses` children and resolves, with the stopper, once every one listens.
 * A child that exits before then fails the start (its log says why); the others are stopped.
 */
export async function startApiCluster(config: Config): Promise<() => Promise<void>> {
  const log = createLogger(config.logLevel, 'api');
  // PORT=0: one free port, chosen here, for every child (each would get its own otherwise).
  const port = config.port === 0 ? await freeReusablePort(config.host) : config.port;
  const env = { PORT: String(port) };
  let stopping = false;
  let restartDelay = 500; // doubled before use: the first restart waits 1 s
  const startedAt = new Map<Worker, number>();

  const fork = (): Worker => {
    const w = cluster.fork(env);
    startedAt.set(w, Date.now());
    return w;
  };

  const first = Array.from({ length: config.apiProcesses }, fork);
  let url = '';
  try {
    await Promise.all(first.map((w) => new Promise<void>((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null) => reject(new Error(`an api process exited while starting (code ${code}, signal ${signal}); its log above says why`));
      w.once('exit', onExit);
      w.on('message', (m: unknown) => {
        if (!isReady(m)) return;
        url = m.url;
        w.off('exit', onExit);
        resolve();
      });
    })));
  } catch (e) {
    stopping = true;
    await stopAll();
    throw e;
  }

  // From here on a child that dies is replaced: the others serve meanwhile.
  cluster.on('exit', (w, code, signal) => {
    const ranMs = Date.now() - (startedAt.get(w) ?? 0);
    startedAt.delete(w);
    if (stopping) return;
    restartDelay = ranMs >= HEALTHY_RUN_MS ? 1000 : Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS);
    const delay = ranMs >= HEALTHY_RUN_MS ? 0 : restartDelay;
    log.warn('api process exited; starting another', { pid: w.process.pid, code, signal, restart_in_ms: delay });
    setTimeout(() => { if (!stopping) fork(); }, delay).unref();
  });
  log.info('api listening', { url, processes: config.apiProcesses, pids: first.map((w) => w.process.pid) });
  // One scrape sums every child (workers/cluster-metrics.ts), on METRICS_HOST:METRICS_PORT.
  const metricsAt = loadObservabilitySettings().metrics;
  const stopMetrics = metricsAt ? await (await import('./cluster-metrics.ts')).serveClusterMetrics(metricsAt.port, metricsAt.host) : undefined;

  async function stopAll(): Promise<void> {
    const children = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    await Promise.all(children.map((w) => new Promise<void>((resolve) => {
      w.once('exit', () => resolve());
      // Each child drains as a single api does (workers/main-guard.ts); SIGTERM, not disconnect(),
      // so its open keep-alive connections are closed the polite way.
      w.process.kill('SIGTERM');
    })));
  }

  return async () => {
    stopping = true;
    await stopAll();
    await stopMetrics?.();
  };
}

/** A port free on `host` now (for PORT=0); the children bind it a moment later. */
async function freeReusablePort(host: string): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ port: 0, host, exclusive: true }, () => resolve());
  });
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}
