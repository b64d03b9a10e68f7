// Runs (spec §2.13, §3, §4.16): triggered by hand or by the public webhook, listed, read and
// cancelled. A trigger commits the run's row first and then starts its workflow; if Temporal
// cannot be reached then, the run is only late: the worker's sweeper starts every open run whose
// workflow does not exist. The trigger waits for the start at most START_WAIT_MS and then answers
// that the run is queued (the route's 202), leaving the start to finish or fail on its own. A
// trigger occurrence names its run (an Idempotency-Key, a webhook delivery id), so a retried
// request never starts a second run.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Logger } from '../log.ts';
import type { AutomationsClient, RunStart } from './client.ts';
import type { RunRow, TriggerType } from './automation-types.ts';
import { OPEN_RUN_STATUSES } from './automation-types.ts';
import { callerOf, type Principal } from '../auth/principal.ts';
import { roleOf } from '../access/roles.ts';
import { conflict, forbidden, notFound } from '../errors.ts';
import { derivedUuid, isUuid } from '../ids.ts';
import { webhookTokenMatches } from './webhook-token.ts';
import { findRun, findRunById, findTriggerTarget, insertRun, listRuns, type TriggerTarget } from './run-repository.ts';

export type RunDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  client: Pick<AutomationsClient, 'startRun' | 'cancelRun' | 'awaitEnd'>;
  log: Logger;
  /** Config.automationRunTimeoutSeconds (300 unless configured). */
  runTimeoutSeconds: number;
};

/** How long a trigger waits for Temporal to take the run before answering that it is queued. */
export const START_WAIT_MS = 2_000;

/** A triggered run; `queued`: Temporal did not take it in time, the sweeper will start it. */
export type TriggeredRun = { run: RunRow; queued: boolean };

export type ManualTrigger = { input: Record<string, unknown> | null; idempotencyKey: string | null };
export type WebhookTrigger = { payload: unknown; idempotencyKey: string | null };

export class RunCommands {
  private readonly d: RunDeps;

  constructor(deps: RunDeps) {
    this.d = deps;
  }

  /** POST /v1/automations/{id}/trigger: a human of the organization or the automation's own agent. */
  async trigger(ctx: ActionContext, automationId: string, t: ManualTrigger): Promise<TriggeredRun> {
    const p = callerOf(ctx);
    const a = await this.visibleAutomation(p, automationId);
    if (!a.is_active) throw conflict('the automation is disabled (is_active: false); enable it to trigger runs');
    const runId = t.idempotencyKey ? derivedUuid(`manual:${a.id}:${t.idempotencyKey}`) : randomUUID();
    const input = t.input ?? {};
    const started = await this.createAndStart(a, runId, 'manual', { input, trigger: input });
    await this.d.audit.record(ctx, 'automation.trigger', { resourceType: 'automation_run', resourceId: started.run.id, details: { automation_id: a.id, trigger: 'manual' } });
    return started;
  }

  /**
   * The public webhook trigger. An unknown automation, one that is not webhook-triggered and a
   * wrong token are the same 404, and each costs the same work: the token is hashed and compared
   * in constant time against a stored hash, or against a dummy one.
   */
  async triggerWebhook(ctx: ActionContext, automationId: string, token: string, t: WebhookTrigger): Promise<TriggeredRun> {
    const a = isUuid(automationId) ? await findTriggerTarget(this.d.db(), automationId) : null;
    const hash = a?.trigger_type === 'webhook' ? a.webhook_token_hash : null;
    const matches = webhookTokenMatches(token, hash ?? DUMMY_HASH);
    if (!a || !hash || !matches) throw notFound('Automation');
    if (!a.is_active) throw conflict('the automation is disabled');
    const runId = t.idempotencyKey ? derivedUuid(`webhook:${a.id}:${t.idempotencyKey}`) : randomUUID();
    const started = await this.createAndStart(a, runId, 'webhook', { webhook_payload: t.payload ?? {} });
    await this.d.audit.record(ctx, 'automation.webhook_trigger', {
      actor: null, orgId: a.org_id, resourceType: 'automation_run', resourceId: started.run.id, details: { automation_id: a.id, trigger: 'webhook' },
    });
    return started;
  }

  async list(ctx: ActionContext, automationId: string, page: { limit: number; offset: number }): Promise<RunRow[]> {
    const p = callerOf(ctx);
    const a = await this.visibleAutomation(p, automationId);
    return listRuns(this.d.db(), a.org_id, a.id, page);
  }

  async get(ctx: ActionContext, automationId: string, runId: string): Promise<RunRow> {
    return (await this.visibleRun(callerOf(ctx), automationId, runId)).run;
  }

  /** Human-only (spec §3): only running or awaiting_approval runs; answers once the run has ended. */
  async cancel(ctx: ActionContext, automationId: string, runId: string): Promise<RunRow> {
    const p = callerOf(ctx);
    if (p.type !== 'user') throw forbidden('Only a human can cancel a run');
    const { a, run } = await this.visibleRun(p, automationId, runId);
    if (!OPEN_RUN_STATUSES.includes(run.status)) throw notCancellable(run);
    const outcome = await this.d.client.cancelRun(run.id);
    if (outcome === 'no_workflow') {
      // Its workflow never started (Temporal was unreachable at trigger time). Start it cancelled:
      // it records that end and nothing else, and a late start of the real run (the trigger's,
      // the sweeper's) finds the ID taken. If that late start won the race, cancel it instead.
      const start = this.runStart(a, run.id, run.trigger_source);
      if (await this.d.client.startRun(start, { cancelled: true })) await this.d.client.awaitEnd(run.id);
      else await this.d.client.cancelRun(run.id);
    }
    const after = (await findRunById(this.d.db(), run.id))!;
    if (after.status !== 'cancelled') throw notCancellable(after);
    await this.d.audit.record(ctx, 'automation.run_cancel', { resourceType: 'automation_run', resourceId: run.id, details: { automation_id: automationId } });
    return after;
  }

  private async createAndStart(a: TriggerTarget, runId: string, source: 'manual' | 'webhook', context: Record<string, unknown>): Promise<TriggeredRun> {
    const { run, created } = await this.d.db().transactional((tx) => insertRun(tx, {
      id: runId, orgId: a.org_id, automationId: a.id, agentId: a.agent_id, source, context,
    }));
    if (!created) return { run, queued: false };
    const start = this.d.client.startRun(this.runStart(a, run.id, source), { workflowSpec: a.workflow_spec, context })
      .then(() => true, (e: unknown) => {
        this.d.log.warn('automation run: workflow not started now; the sweeper will start it', { runId: run.id, error: (e as Error).message });
        return false;
      });
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<'waited'>((resolve) => { timer = setTimeout(() => resolve('waited'), START_WAIT_MS); });
    const outcome = await Promise.race([start, waited]);
    clearTimeout(timer);
    return { run, queued: outcome !== true };
  }

  private runStart(a: TriggerTarget, runId: string, source: TriggerType): RunStart {
    return {
      runId, orgId: a.org_id, automationId: a.id, agentId: a.agent_id, triggerType: source,
      automationName: a.name, timeoutSeconds: this.d.runTimeoutSeconds,
    };
  }

  /** A run of an automation the caller may see (another organization's → 404). */
  private async visibleRun(p: Principal, automationId: string, runId: string): Promise<{ a: TriggerTarget; run: RunRow }> {
    const a = await this.visibleAutomation(p, automationId);
    const run = isUuid(runId) ? await findRun(this.d.db(), a.org_id, a.id, runId) : null;
    if (!run) throw notFound('Run');
    return { a, run };
  }

  /** The automation if the caller may see it: a human of its organization, or its own agent. */
  private async visibleAutomation(p: Principal, automationId: string): Promise<TriggerTarget> {
    const a = isUuid(automationId) ? await findTriggerTarget(this.d.db(), automationId) : null;
    if (!a || a.org_id !== p.orgId) throw notFound('Automation');
    if (p.type === 'agent' ? a.agent_id !== p.id : (await roleOf(this.d.db(), p)) === null) throw notFound('Automation');
    return a;
  }
}

/** Compared against when there is no stored hash, so a miss costs what a hit costs. */
const DUMMY_HASH = Buffer.alloc(32);

const notCancellable = (run: RunRow) => conflict(`run is ${run.status}; only running or awaiting_approval runs can be cancelled`);
