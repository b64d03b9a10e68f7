// `npm start`: everything on one machine. Embedded PostgreSQL under DATA_DIR (unless
// DATABASE_URL), a Temporal dev server persisted under DATA_DIR (unless TEMPORAL_ADDRESS),
// then the api and a worker in this process. Ctrl-C stops all of it, in the reverse order of
// start: the api drains while the worker, Temporal and PostgreSQL still run. PostgreSQL and
// Temporal run in their own process groups, so a terminal's Ctrl-C reaches only this process.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, uiOriginsFor } from '../domain/config.ts';
import { startEmbeddedPostgres } from '../db/embedded-postgres.ts';
import { findTemporalCli, startTemporalDevServer } from './temporal-dev-server.ts';
import { startApi } from './api-process.ts';
import { startWorker } from './worker-process.ts';
import { runMain } from './main-guard.ts';
import { createLogger } from '../domain/log.ts';
import { startProcessTelemetry } from '../domain/observability/process-telemetry.ts';

const projectRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (m: string) => process.stderr.write(`[dev] ${m}\n`);

await runMain(async () => {
  const config = loadConfig(process.env);
  // One metrics listener and one tracer for the api and the worker of this process.
  const telemetry = await startProcessTelemetry('vault', createLogger(config.logLevel, 'telemetry'));
  const stops: { name: string; stop: () => Promise<void> }[] = [];
  // Each step is logged: the log shows the order (test/integration/dev-launcher.test.ts reads it).
  const stopAll = async () => {
    for (const { name, stop } of [...stops].reverse()) {
      say(`stopping ${name}`);
      await stop().then(() => say(`${name} stopped`), (e) => say(`stopping ${name} failed: ${String(e)}`));
    }
  };
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const pg = await startEmbeddedPostgres(config.dataDir, say);
      stops.push({ name: 'PostgreSQL', stop: pg.stop });
      databaseUrl = pg.url;
      say(`PostgreSQL (embedded) data in ${path.join(config.dataDir, 'postgres')}`);
    }
    let temporalAddress = config.temporalAddress;
    let uiUrl: string | null = null;
    if (!temporalAddress) {
      const cli = findTemporalCli(projectRoot, config.temporalCliPath, say);
      const temporal = await startTemporalDevServer(cli, config.dataDir, { ui: process.env.TEMPORAL_UI !== 'off', uiPort: config.temporalUiPort }, say);
      stops.push({ name: 'the Temporal dev server', stop: temporal.stop });
      temporalAddress = temporal.address;
      uiUrl = temporal.uiUrl;
    }
    // A UI that had to move to another port is the one the codec endpoint must answer (CORS).
    const uiPort = uiUrl ? Number(new URL(uiUrl).port) : config.temporalUiPort;
    const apiConfig = uiPort !== config.temporalUiPort && !process.env.TEMPORAL_UI_ORIGINS
      ? { ...config, temporalUiOrigins: uiOriginsFor(uiPort) } : config;
    const worker = await startWorker(config, databaseUrl, temporalAddress);
    stops.push({ name: 'the worker', stop: worker.stop });
    // The api shares the worker's connection: runs it starts begin in this process at once (eager start).
    const api = await startApi(apiConfig, databaseUrl, temporalAddress, worker.connection);
    stops.push({ name: 'the api', stop: api.stop });
    say(`API:         ${api.url}/v1  (health: ${api.url}/v1/health, OpenAPI: ${api.url}/v1/openapi.json)`);
    say(`Temporal:    ${temporalAddress}${uiUrl ? `  (UI: ${uiUrl})` : ''}`);
    if (telemetry.metricsUrl) say(`Metrics:     ${telemetry.metricsUrl}  (the api's and the worker's, Temporal's included)`);
    if (uiUrl) say(`Decoding payloads in the UI (platform operators): POST ${api.url}/v1/admin/temporal-codec/links, then paste its codec_endpoint into the UI's codec server settings.`);
    say(`First account: curl -s -X POST ${api.url}/v1/auth/signup -H 'content-type: application/json' -d '{"email":"you@example.com","password":"a-long-password"}'`);
    say('Mail is printed to this log unless SMTP_URL is set. Ctrl-C stops everything.');
    // For scripts and tests that drive a local stack: where everything listens.
    if (process.env.DEV_READY_FILE) {
      fs.writeFileSync(process.env.DEV_READY_FILE, JSON.stringify({ apiUrl: api.url, databaseUrl, temporalAddress, pid: process.pid }), { mode: 0o600 });
    }
  } catch (e) {
    await stopAll();
    await telemetry.stop();
    throw e;
  }
  return async () => { await stopAll(); await telemetry.stop(); };
});
