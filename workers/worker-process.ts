// Starts the Temporal workers (one per task queue in workers/temporal-registry.ts) and the sweeper
// that re-drives durable intents whose workflow could not be started at request time (Temporal
// briefly down).
import { Client } from '@temporalio/client';
import { NativeConnection, Worker, Runtime, DefaultLogger } from '@temporalio/worker';
import type { Config } from '../domain/config.ts';
import { createLogger } from '../domain/log.ts';
import { logExemptions, parseExemptions } from '../domain/net/outbound/exemptions.ts';
import { createOutboundClient } from '../domain/net/outbound/client.ts';
import { OutboxDispatcher } from '../domain/events/dispatcher.ts';
import { WebhooksClient } from '../domain/webhooks/client.ts';
import { WebhookSubscriber } from '../domain/webhooks/webhook-subscriber.ts';
import { DirectRounds } from '../domain/webhooks/direct-rounds.ts';
import { WebhookSender } from '../domain/webhooks/sender.ts';
import { markBatchesStarted } from '../domain/webhooks/delivery-repository.ts';
import { openCore } from './core.ts';
import { migrate } from '../db/migrate.ts';
import { checkRootKey } from '../domain/auth/root-key-check.ts';
import { connectTemporal } from '../domain/temporal/connection.ts';
import { createMailTransport } from '../domain/mail/deliver.ts';
import { workflowCodeOptions } from './worker-options.ts';
import { TEMPORAL_AREAS, type WorkerDeps } from './temporal-registry.ts';
import { AutomationsClient } from '../domain/automations/client.ts';
import { AutomationSchedules } from '../domain/automations/schedule-client.ts';
import { AutomationEventSubscriber } from '../domain/automations/event-subscriber.ts';
import { intentServices } from './intent-services.ts';
import { IntentSteps } from '../domain/automations/intent-steps.ts';
import { ZeroExQuoteProvider } from '../domain/swaps/zero-ex-quote-provider.ts';
import { StepRunner } from '../domain/automations/step-runner.ts';
import { AiGenerateStep } from '../domain/automations/ai-step.ts';
import { bindingServices } from './binding-services.ts';
import { MemoryStore } from '../domain/memory/memory-store.ts';
import { Mailer } from '../domain/mail/mailer.ts';
import { MailClient } from '../domain/mail/client.ts';
import { hotReads } from '../db/hot-reads.ts';
import { AuditWriter } from '../domain/audit/audit-writer.ts';
import { secretReadPrecondition } from '../domain/secrets/read-guard.ts';
import { ActionAudit } from '../domain/audit/action-audit.ts';
import { secretCommands } from './secret-services.ts';
import { ensureSearchAttributes } from '../domain/temporal/search-attributes.ts';
import { temporalDataConverter } from '../domain/temporal/payload-codec.ts';
import { DRAIN_TIMEOUT_MS } from './main-guard.ts';
import { temporalClientInterceptors, temporalWorkerTracing } from '../domain/observability/tracing.ts';
import { temporalMetricsAddress } from '../domain/observability/process-telemetry.ts';

const SWEEP_EVERY_MS = 15_000;
/** An intent this old whose workflow is not running had its start fail: start it again. */
const REDRIVE_AFTER_SECONDS = 30;

let runtimeInstalled = false;
/**
 * The SDK logs every worker state change at INFO: keep our log readable unless debugging. It
 * would also take over SIGINT/SIGTERM and re-raise them; our entry points own signals instead
 * (workers/main-guard.ts), so every child process is stopped in order.
 */
function installQuietRuntime(level: Config['logLevel'], metricsAddress: string | undefined): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  // With METRICS_PORT set, the SDK's own metrics (task slots, poll and schedule latencies, sticky
  // cache) go to a loopback exporter that this process's /metrics appends.
  const telemetryOptions = metricsAddress ? { metrics: { prometheus: { bindAddress: metricsAddress } } } : undefined;
  Runtime.install({ logger: new DefaultLogger(level === 'debug' ? 'INFO' : 'WARN'), shutdownSignals: [], telemetryOptions });
}

/** `connection`: its Temporal connection, for an api in the same process to start workflows eagerly. */
export type RunningWorker = { connection: NativeConnection; stop: () => Promise<void> };

export async function startWorker(config: Config, databaseUrl: string, temporalAddress: string): Promise<RunningWorker> {
  const log = createLogger(config.logLevel, 'worker');
  logExemptions(config.outboundAllowCidrs, log);
  const core = await openCore(config, databaseUrl);
  const em = () => core.db.em.fork();
  await migrate(em(), (m) => log.info(m));
  await checkRootKey(em(), core.jwtWrapKey); // a wrong ROOT_KEY stops the start here
  if (!runtimeInstalled) installQuietRuntime(config.logLevel, await temporalMetricsAddress());
  const connection = await NativeConnection.connect({ address: temporalAddress });
  // Every payload this worker and its client exchange with Temporal is encrypted (payload-codec.ts).
  const dataConverter = temporalDataConverter(core.temporalCodecKey);
  const temporal = await connectTemporal(temporalAddress, config.temporalNamespace, dataConverter);
  await ensureSearchAttributes(temporal, config.temporalNamespace);
  const webhooks = new WebhooksClient(temporal, config.webhookRetryInitialSeconds);
  const exemptions = parseExemptions(config.outboundAllowCidrs);
  const outbound = createOutboundClient({ exemptions });
  // Automation steps act as their agent through the same secret commands as the api (own
  // caches; each read is decided against the database's current rows).
  const hot = hotReads(databaseUrl, 4, 'ocv-worker');
  const audit = new ActionAudit(new AuditWriter(hot, core.auditKey, log, secretReadPrecondition));
  // Runs this process starts (event triggers, the sweeper) start eagerly on its own workers.
  const automations = new AutomationsClient(temporal, new Client({ connection, namespace: config.temporalNamespace, dataConverter, interceptors: temporalClientInterceptors() }));
  const schedules = new AutomationSchedules(em, temporal, log);
  // Steps that sign and submit act through the same Intents API commands as the api.
  const intents = intentServices({ db: em, hot, kms: core.kms, audit, temporal, log, rpcOverrides: config.chainRpcUrls });
  const stepSecrets = secretCommands({ db: em, hot, kms: core.kms, audit, pepper: core.pepper });
  const automationSteps = new StepRunner({
    db: em, outbound, memory: new MemoryStore(em),
    intents: new IntentSteps({
      db: em, transactions: intents.transactions, simulations: intents.simulations, rpc: intents.chainRpc,
      swaps: new ZeroExQuoteProvider({ baseUrl: config.swapApiUrl, apiKey: config.swapApiKey, outbound }),
    }),
    secrets: stepSecrets,
    mailer: new Mailer(new MailClient(temporal, log), core.mailKey),
    ai: new AiGenerateStep({ db: em, secrets: stepSecrets, outbound, ai: config.ai }),
    bindings: bindingServices({ db: em, kms: core.kms, audit, secrets: stepSecrets, outbound, exemptions }).bindingExecutor,
  });
  const deps: WorkerDeps = {
    em, kms: core.kms, mailKey: core.mailKey, temporal, log,
    transport: createMailTransport(config.smtpUrl, config.mailFrom, log),
    webhookKey: core.webhookKey, webhooks, outbound,
    automations, schedules, automationSteps, runTimeoutSeconds: config.automationRunTimeoutSeconds,
    shareAccessMailWindowSeconds: config.shareAccessMailWindowSeconds, chainRpc: intents.chainRpc, rpcOverrides: config.chainRpcUrls,
    retentionDays: config.retentionDays, publicUrl: config.publicUrl,
  };
  // With tracing on: the traced workflow bundle, activity spans and the workflow span sink.
  const tracing = await temporalWorkerTracing();
  const code = await workflowCodeOptions(tracing.sinks !== undefined);
  const workers = await Promise.all(TEMPORAL_AREAS.map((area) => Worker.create({
    connection, namespace: config.temporalNamespace, ...code, ...tracing, dataConverter, taskQueue: area.taskQueue, activities: area.activities(deps),
    workflowThreadPoolSize: area.workflowThreads ?? 1,
    shutdownGraceTime: DRAIN_TIMEOUT_MS, // a stop lets running activities finish before it asks them to cancel (the SDK's default: at once)
    ...(area.workflowTaskSlots ? { maxConcurrentWorkflowTaskExecutions: area.workflowTaskSlots } : {}),
  })));
  const runs = workers.map((w) => w.run());
  // Every subscriber of the event outbox; automation triggers join webhooks here. A quiet
  // period's webhook batches have their first round sent from here, without a workflow hop.
  const sender = new WebhookSender({ em, webhookKey: core.webhookKey, outbound });
  const directRounds = new DirectRounds({
    round: (batchId, round) => sender.round(batchId, round), startBatch: (batchId) => webhooks.startBatch(batchId),
    markStarted: (batchIds) => markBatchesStarted(em(), batchIds), log,
  });
  const dispatcher = new OutboxDispatcher({
    databaseUrl, em, log,
    subscribers: [new WebhookSubscriber(em, webhooks, directRounds), new AutomationEventSubscriber(em, automations, log, config.automationRunTimeoutSeconds)],
  });
  await dispatcher.start();
  // Schedules of automations changed while Temporal was unreachable, and of deleted automations.
  await schedules.reconcile({ orphans: true }).catch((e) => log.warn('schedule reconcile failed; retried by the sweeper', { error: String(e) }));
  const sweep = async () => {
    for (const area of TEMPORAL_AREAS) await area.redrive(deps, REDRIVE_AFTER_SECONDS);
  };
  const timer = setInterval(() => { sweep().catch((e) => log.warn('sweep failed', { error: String(e) })); }, SWEEP_EVERY_MS);
  timer.unref();
  log.info('worker running', { task_queues: TEMPORAL_AREAS.map((a) => a.taskQueue) });
  return {
    connection,
    stop: async () => {
      clearInterval(timer);
      await dispatcher.stop();
      for (const w of workers) w.shutdown();
      await Promise.allSettled(runs);
      await temporal.connection.close();
      await connection.close();
      await hot.close();
      await core.kms.close();
      await core.db.close();
    },
  };
}
