// Production entry point of the Temporal worker: `node workers/worker.ts`.
import { loadConfig } from '../domain/config.ts';
import { startWorker } from './worker-process.ts';
import { runMain } from './main-guard.ts';
import { createLogger } from '../domain/log.ts';
import { startProcessTelemetry } from '../domain/observability/process-telemetry.ts';

await runMain(async () => {
  const config = loadConfig(process.env, ['DATABASE_URL', 'TEMPORAL_ADDRESS']);
  // Tracing and metrics first: the worker's clients and listeners are built with them.
  const telemetry = await startProcessTelemetry('vault-worker', createLogger(config.logLevel, 'telemetry'));
  const worker = await startWorker(config, config.databaseUrl!, config.temporalAddress!);
  return async () => { await worker.stop(); await telemetry.stop(); };
});
