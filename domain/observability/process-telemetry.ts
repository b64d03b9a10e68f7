// One call per process (workers/api.ts, workers/worker.ts, workers/dev.ts): reads the
// observability variables, starts tracing when an OTLP endpoint is set and the metrics listener
// when METRICS_PORT is. The api and a worker in one process (npm start) share both.
import type { Logger } from '../log.ts';
import { freePort } from '../../db/free-port.ts';
import { loadObservabilitySettings, type ObservabilitySettings } from './settings.ts';
import { startTracing } from './tracing.ts';
import type { Registry } from 'prom-client';
import { addExternalMetrics, collectProcessMetrics, registry } from './metrics.ts';
import { startMetricsServer } from './metrics-server.ts';

export type ProcessTelemetry = { settings: ObservabilitySettings; metricsUrl: string | null; stop: () => Promise<void> };

let current: ObservabilitySettings | undefined;

/** The settings the process started with (read from the environment if it never started telemetry: tests). */
export function observabilitySettings(): ObservabilitySettings {
  return current ??= loadObservabilitySettings();
}

/**
 * `shareMetrics`: this process is one of several api processes on one port (API_PROCESSES): it
 * hands its registry to the launcher, which serves METRICS_PORT summed over all of them, instead
 * of listening itself (the port is the launcher's).
 */
export async function startProcessTelemetry(serviceName: string, log: Logger, env: NodeJS.ProcessEnv = process.env,
  opts: { shareMetrics?: (registries: Registry[]) => void } = {}): Promise<ProcessTelemetry> {
  const settings = loadObservabilitySettings(env);
  current = settings;
  const tracing = settings.tracing ? await startTracing(serviceName) : null;
  if (tracing) log.info('tracing on: spans go to the OTLP endpoint', { service: serviceName });
  let metrics: Awaited<ReturnType<typeof startMetricsServer>> | null = null;
  if (settings.metrics) {
    collectProcessMetrics();
    if (opts.shareMetrics) opts.shareMetrics([registry]);
    else metrics = await startMetricsServer(settings.metrics.host, settings.metrics.port, log);
  }
  return {
    settings,
    metricsUrl: metrics?.url ?? null,
    stop: async () => {
      await metrics?.stop();
      await tracing?.shutdown().catch((e) => log.warn('flushing spans failed', { error: String(e) }));
    },
  };
}

/**
 * Where the Temporal SDK of a worker in this process exports its metrics: a loopback port of its
 * own, appended to /metrics. Undefined when this process serves no metrics.
 */
export async function temporalMetricsAddress(): Promise<string | undefined> {
  if (!current?.metrics) return undefined;
  const port = await freePort();
  addExternalMetrics('temporal', `http://127.0.0.1:${port}/metrics`);
  return `127.0.0.1:${port}`;
}
