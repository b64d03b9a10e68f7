// Production entry point of the HTTP api: `node workers/api.ts`. With API_PROCESSES above 1
// (default: one per core) this process only supervises that many api processes on the one port
// (workers/api-cluster.ts); the app itself is loaded in each of them, never here.
import cluster from 'node:cluster';
import { loadConfig } from '../domain/config.ts';
import { reportListening, startApiCluster } from './api-cluster.ts';
import { runMain } from './main-guard.ts';
import { createLogger } from '../domain/log.ts';
import { startProcessTelemetry } from '../domain/observability/process-telemetry.ts';
import { shareMetricsWithPrimary } from './cluster-metrics.ts';

await runMain(async () => {
  const config = loadConfig(process.env, ['DATABASE_URL', 'TEMPORAL_ADDRESS']);
  if (cluster.isPrimary && config.apiProcesses > 1) return startApiCluster(config);
  // Tracing and metrics first: the api's clients and listeners are built with them. A cluster
  // child hands its metrics to the launcher, which serves METRICS_PORT for all of them.
  const telemetry = await startProcessTelemetry('vault-api', createLogger(config.logLevel, 'telemetry'), process.env,
    cluster.isWorker ? { shareMetrics: shareMetricsWithPrimary } : {});
  const { startApi } = await import('./api-process.ts');
  // A cluster child binds the port itself beside its siblings (SO_REUSEPORT).
  const api = await startApi(config, config.databaseUrl!, config.temporalAddress!, undefined, { reusePort: cluster.isWorker });
  reportListening(api.url);
  return async () => { await api.stop(); await telemetry.stop(); };
});
