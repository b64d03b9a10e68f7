// Production entry point of the HTTP api: `node workers/api.ts`.
import { loadConfig } from '../domain/config.ts';
import { startApi } from './api-process.ts';
import { runMain } from './main-guard.ts';
import { createLogger } from '../domain/log.ts';
import { startProcessTelemetry } from '../domain/observability/process-telemetry.ts';

await runMain(async () => {
  const config = loadConfig(process.env, ['DATABASE_URL', 'TEMPORAL_ADDRESS']);
  // Tracing and metrics first: the api's clients and listeners are built with them.
  const telemetry = await startProcessTelemetry('vault-api', createLogger(config.logLevel, 'telemetry'));
  const api = await startApi(config, config.databaseUrl!, config.temporalAddress!);
  return async () => { await api.stop(); await telemetry.stop(); };
});
