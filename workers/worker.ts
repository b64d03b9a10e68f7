// Production entry point of the Temporal worker: `node workers/worker.ts`.
import { loadConfig } from '../domain/config.ts';
import { startWorker } from './worker-process.ts';
import { runMain } from './main-guard.ts';

await runMain(async () => {
  const config = loadConfig(process.env, ['DATABASE_URL', 'TEMPORAL_ADDRESS']);
  const worker = await startWorker(config, config.databaseUrl!, config.temporalAddress!);
  return worker.stop;
});
