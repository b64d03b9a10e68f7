// Starts the Temporal workers (one per task queue) and the sweeper that re-drives durable
// intents whose workflow could not be started at request time (Temporal briefly down).
import { NativeConnection, Worker, Runtime, DefaultLogger } from '@temporalio/worker';
import type { Config } from '../domain/config.ts';
import { createLogger } from '../domain/log.ts';
import { openCore } from './core.ts';
import { migrate } from '../db/migrate.ts';
import { TASK_QUEUES } from '../domain/temporal/task-queues.ts';
import { WorkflowStarter, connectTemporal } from '../domain/temporal/workflow-starter.ts';
import { createMailTransport } from '../domain/mail/deliver.ts';
import { pendingMailIds } from '../domain/mail/outbox.ts';
import { accountsAwaitingDeletion } from '../domain/accounts/account-deletion.ts';
import { createMailActivities } from '../activities/mail.ts';
import { createAccountActivities } from '../activities/accounts.ts';
import { workflowCodeOptions } from './worker-options.ts';

const SWEEP_EVERY_MS = 15_000;

let runtimeInstalled = false;
/**
 * The SDK logs every worker state change at INFO: keep our log readable unless debugging. It
 * would also take over SIGINT/SIGTERM and re-raise them; our entry points own signals instead
 * (workers/main-guard.ts), so every child process is stopped in order.
 */
function installQuietRuntime(level: Config['logLevel']): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger(level === 'debug' ? 'INFO' : 'WARN'), shutdownSignals: [] });
}

export type RunningWorker = { stop: () => Promise<void> };

export async function startWorker(config: Config, databaseUrl: string, temporalAddress: string): Promise<RunningWorker> {
  const log = createLogger(config.logLevel, 'worker');
  const core = await openCore(config, databaseUrl);
  const em = () => core.db.em.fork();
  await migrate(em(), (m) => log.info(m));
  installQuietRuntime(config.logLevel);
  const connection = await NativeConnection.connect({ address: temporalAddress });
  const transport = createMailTransport(config.smtpUrl, config.mailFrom, log);
  const code = await workflowCodeOptions();
  const common = { connection, namespace: config.temporalNamespace, ...code };
  const workers = [
    await Worker.create({ ...common, taskQueue: TASK_QUEUES.mail, activities: createMailActivities({ em, transport }) }),
    await Worker.create({ ...common, taskQueue: TASK_QUEUES.accounts, activities: createAccountActivities({ em, kms: core.kms }) }),
  ];
  const runs = workers.map((w) => w.run());
  const client = await connectTemporal(temporalAddress, config.temporalNamespace);
  const starter = new WorkflowStarter(client, log);
  const sweep = async () => {
    for (const id of await pendingMailIds(em(), 30)) await starter.deliverMail(id);
    for (const id of await accountsAwaitingDeletion(em(), 30)) await starter.deleteAccount(id);
  };
  const timer = setInterval(() => { sweep().catch((e) => log.warn('sweep failed', { error: String(e) })); }, SWEEP_EVERY_MS);
  timer.unref();
  log.info('worker running', { task_queues: Object.values(TASK_QUEUES) });
  return {
    stop: async () => {
      clearInterval(timer);
      for (const w of workers) w.shutdown();
      await Promise.allSettled(runs);
      await client.connection.close();
      await connection.close();
      await core.kms.close();
      await core.db.close();
    },
  };
}
