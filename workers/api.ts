// Production entry point of the HTTP api: `node workers/api.ts`.
import { loadConfig } from '../domain/config.ts';
import { startApi } from './api-process.ts';
import { runMain } from './main-guard.ts';

await runMain(async () => {
  const config = loadConfig(process.env, ['DATABASE_URL', 'TEMPORAL_ADDRESS']);
  const api = await startApi(config, config.databaseUrl!, config.temporalAddress!);
  return api.stop;
});
