// Activities of the automation workflows: thin adapters over domain/automations (run rows, the
// step runner, approvals). The workflow passes ids and step parameters; every write is guarded by
// the status it leaves, so a repeated activity changes nothing twice.
import { Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../domain/log.ts';
import type { StepRunner } from '../domain/automations/step-runner.ts';
import type { StepType } from '../domain/automations/spec/step-types.ts';
import type {
  ApprovalDecision, ApprovalOutcome, ApprovalStart, RunActor, RunEndInput, StepCall, StepResult,
} from '../domain/automations/engine/run-io.ts';
import type { AutomationSchedules } from '../domain/automations/schedule-client.ts';
import { finishRun, moveRun } from '../domain/automations/run-repository.ts';
import { createScheduledRun, type ScheduledRunStart } from '../domain/automations/scheduled-run.ts';
import { createApprovalOnce, applyDecision, applyExpiry, expireRunApprovals, findSameDecision } from '../domain/approvals/approval-events.ts';
import { derivedUuid } from '../domain/ids.ts';
import { findApprovalById } from '../domain/approvals/approval-repository.ts';
import type { TemporalArea } from './temporal-area.ts';
import { AUTOMATIONS_TASK_QUEUE } from '../domain/automations/client.ts';
import { openRunsBetween } from '../domain/automations/run-repository.ts';
import { automationRunSeconds } from '../domain/observability/metrics.ts';
import { ApprovalQuickLinks } from '../domain/approvals/quick-links.ts';
import { Mailer } from '../domain/mail/mailer.ts';
import { MailClient } from '../domain/mail/client.ts';

export type AutomationActivityDeps = {
  em: () => EntityManager;
  steps: StepRunner;
  schedules: AutomationSchedules;
  log: Logger;
  runTimeoutSeconds: number;
  /** Mails the quick-decide links of a run's approval to the organization's owners and admins (once per approval). */
  quickLinks?: Pick<ApprovalQuickLinks, 'mailApprovers'>;
};

export function createAutomationActivities(d: AutomationActivityDeps) {
  return {
    async runStep(actor: RunActor, type: StepType, params: Record<string, unknown>, call: StepCall = { key: '', known: [] }): Promise<unknown> {
      return d.steps.run(actor, type, params, call);
    },

    /**
     * Parks the run: the approval record and the run's move to awaiting_approval, in one
     * transaction. Idempotent per run and step: the approval's id derives from them, so an attempt
     * repeated after a crash finds the approval the first one made (and its expiry) instead of
     * adding a second.
     */
    async requestApproval(actor: RunActor, params: Record<string, unknown>, stepResults: StepResult[], stepKey = ''): Promise<ApprovalStart> {
      const expiresInMs = Number(params.expires_in_secs ?? 86_400) * 1000;
      const started = await d.em().transactional(async (tx) => {
        const approval = await createApprovalOnce(tx, {
          id: derivedUuid(`automation-run:${actor.runId}:approval:${stepKey}`),
          orgId: actor.orgId, agentId: actor.agentId, runId: actor.runId, automationId: actor.automationId,
          action: String(params.action ?? 'automation_step'),
          targetType: 'automation_run', targetId: actor.runId,
          summary: typeof params.summary === 'object' && params.summary !== null ? params.summary as Record<string, unknown> : { text: String(params.summary ?? '') },
          reason: typeof params.reason === 'string' ? params.reason : null,
          riskTier: Number(params.risk_tier ?? 1),
          expiresAt: new Date(Date.now() + expiresInMs),
        });
        await moveRun(tx, actor.runId, 'running', 'awaiting_approval', stepResults);
        // A repeated attempt waits out what is left of the first one's expiry, not a fresh one.
        return { approval, start: { approvalId: approval.id, expiresInMs: approval.expires_at ? Math.max(0, new Date(approval.expires_at).getTime() - Date.now()) : expiresInMs } };
      });
      // After the commit; a retry after a crash finds the links made and mails nothing twice.
      await d.quickLinks?.mailApprovers(started.approval);
      return started.start;
    },

    /**
     * A human's decision, through the run's Update: null when the approval is no longer pending.
     * Idempotent per approval and decision: an attempt repeated after a crash finds its own
     * decision recorded and reports it as made.
     */
    async decideRunApproval(runId: string, dec: ApprovalDecision): Promise<ApprovalOutcome | null> {
      return d.em().transactional(async (tx) => {
        const row = await applyDecision(tx, dec.approvalId, dec.decision, dec.reason, dec.decidedBy) ?? await findSameDecision(tx, dec);
        if (!row) return null;
        if (row.status === 'approved') await moveRun(tx, runId, 'awaiting_approval', 'running');
        return outcomeOf(row);
      });
    },

    /** The approval's time is up: expire it, unless a decision landed first (then that decision). */
    async expireRunApproval(runId: string, approvalId: string): Promise<ApprovalOutcome> {
      return d.em().transactional(async (tx) => {
        const expired = await applyExpiry(tx, approvalId);
        const row = expired ?? await findApprovalById(tx, approvalId);
        if (!row) return { approvalId, status: 'expired', decidedBy: null, decisionReason: null };
        if (row.status === 'approved') await moveRun(tx, runId, 'awaiting_approval', 'running');
        return outcomeOf(row);
      });
    },

    /** The final write; approvals the run still waited on expire with it. */
    async finishRun(runId: string, end: RunEndInput): Promise<boolean> {
      const seconds = await d.em().transactional(async (tx) => {
        const ran = await finishRun(tx, runId, end);
        if (ran !== null) await expireRunApprovals(tx, runId);
        return ran;
      });
      // Counted once, by the attempt that ended the run (a repeated attempt moves nothing).
      if (seconds !== null) automationRunSeconds.observe({ status: end.status }, seconds);
      return seconds !== null;
    },

    /** A schedule's tick: the run record (idempotent per tick) and the schedule's next time. */
    async startScheduledRun(automationId: string): Promise<ScheduledRunStart | null> {
      // The tick's own workflow id (the schedule's id and the scheduled time) names the run.
      const tickId = Context.current().info.workflowExecution!.workflowId;
      const start = await createScheduledRun(d.em(), automationId, tickId, d.runTimeoutSeconds, d.log);
      await d.schedules.refreshNextRun(automationId).catch((e) => d.log.warn('next run time not refreshed', { automationId, error: String(e) }));
      return start;
    },
  };
}

function outcomeOf(row: { id: string; status: string; decided_by: string | null; decision_reason: string | null }): ApprovalOutcome {
  return { approvalId: row.id, status: row.status as ApprovalOutcome['status'], decidedBy: row.decided_by, decisionReason: row.decision_reason };
}

export type AutomationActivities = ReturnType<typeof createAutomationActivities>;

/** A run still `running` this long after its start cannot have a workflow (its time-out ended it). */
const OPEN_RUN_HORIZON_SECONDS = 3600;

export const automationsArea: TemporalArea = {
  taskQueue: AUTOMATIONS_TASK_QUEUE,
  // Each run is a workflow of its own, and the SDK's sandbox costs a few ms of CPU per run.
  workflowThreads: 2,
  // Runs start eagerly (their first task comes back with the start) only while a workflow-task
  // slot is free; with the default 40, about 58% of starts under 16 triggering clients fell back
  // to the task queue, with 200 none to a quarter, and the backlog stayed small (docs/benchmarks.md).
  workflowTaskSlots: 200,
  activities: (d) => createAutomationActivities({
    em: d.em, steps: d.automationSteps, schedules: d.schedules, log: d.log, runTimeoutSeconds: d.runTimeoutSeconds,
    quickLinks: new ApprovalQuickLinks({ em: d.em, mailer: new Mailer(new MailClient(d.temporal, d.log), d.mailKey), publicUrl: d.publicUrl }),
  }),
  // Runs whose start failed at trigger time (a no-op for runs whose workflow exists), and
  // schedules behind their automation's row.
  async redrive(d, olderThan) {
    for (const r of await openRunsBetween(d.em(), olderThan, OPEN_RUN_HORIZON_SECONDS)) {
      await d.automations.startRun({
        runId: r.id, orgId: r.org_id, automationId: r.automation_id, agentId: r.agent_id, triggerType: r.trigger_source,
        automationName: r.name, timeoutSeconds: d.runTimeoutSeconds,
      }, { workflowSpec: r.workflow_spec, context: r.context });
    }
    await d.schedules.reconcile({ orphans: false });
  },
};
