// What the worker needs to know of a Temporal area: its task queue, its activities, and how the
// sweeper re-drives durable intents whose workflow could not be started at request time. Each
// area declares itself at the end of its activities file (activities/<area>.ts); the worker runs
// the list in workers/temporal-registry.ts. The area's starter and workflow ids are its domain
// client (domain/<area>/client.ts); its workflow code is workflows/<area>/.
import type { KeyObject } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../domain/crypto/kms/kms.ts';
import type { Logger } from '../domain/log.ts';
import type { MailTransport } from '../domain/mail/deliver.ts';
import type { OutboundClient } from '../domain/net/outbound/client.ts';
import type { WebhooksClient } from '../domain/webhooks/client.ts';
import type { AutomationsClient } from '../domain/automations/client.ts';
import type { AutomationSchedules } from '../domain/automations/schedule-client.ts';
import type { StepRunner } from '../domain/automations/step-runner.ts';
import type { ChainRpc } from '../domain/chains/chain-rpc.ts';

/** What the worker process hands every area. */
export type WorkerDeps = {
  em: () => EntityManager; kms: Kms; mailKey: KeyObject; transport: MailTransport; temporal: Client; log: Logger;
  webhookKey: KeyObject; outbound: OutboundClient; webhooks: WebhooksClient;
  automations: AutomationsClient; schedules: AutomationSchedules; automationSteps: StepRunner; runTimeoutSeconds: number;
  shareAccessMailWindowSeconds: number; chainRpc: ChainRpc;
  /** CHAIN_RPC_URLS: the nodes the deployment pins, by chain name (the non-EVM families read them). */
  rpcOverrides: ReadonlyMap<string, string>;
  /** RETENTION_DAYS (domain/retention). */
  retentionDays: number;
  /** PUBLIC_URL: where mailed links (approval quick-decide) point. */
  publicUrl: string;
};

export type TemporalArea = {
  taskQueue: string;
  activities: (deps: WorkerDeps) => object;
  /**
   * Threads running this queue's workflow code (the SDK's default is one). An area with many
   * short workflows gets two, so its workflow code is not bound to one core.
   */
  workflowThreads?: number;
  /**
   * Workflow tasks this queue's worker takes at once (the SDK's default is 40). Eager workflow
   * starts need a free one, else they silently fall back to the task queue.
   */
  workflowTaskSlots?: number;
  /** Starts (through the area's client) the workflows of intents older than `olderThanSeconds`. */
  redrive: (deps: WorkerDeps, olderThanSeconds: number) => Promise<void>;
};
