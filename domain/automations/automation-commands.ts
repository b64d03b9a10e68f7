// Automations (spec §2.12, §4.16): owners and admins create, change and delete them; every human
// of the organization reads them; an agent reads only those bound to itself (the MCP tools act
// with agent credentials). Each command owns its transaction and its audit record. A webhook
// automation's `whk_` token is shown once (on create and after a rotation) and kept only as its
// SHA-256; it never reaches a log line or an audit record.
//
// A cron automation is one Temporal Schedule. The row is the truth: after the commit a command
// asks the schedule side to follow it, best effort; if Temporal cannot be reached then, the
// worker's reconciler catches up (the row's `version` is ahead of its `schedule_version`).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Logger } from '../log.ts';
import type { TriggerType } from './automation-types.ts';
import { callerOf, type Principal } from '../auth/principal.ts';
import { requireManager, roleOf } from '../access/roles.ts';
import { assertBelowTierLimit } from '../limits/tier-limits.ts';
import { badRequest, forbidden, invalidField, notFound } from '../errors.ts';
import { parseWorkflowSpec } from './spec/workflow-spec.ts';
import { checkStepDestinations, type DestinationPolicy } from './spec/step-destinations.ts';
import { checkTimezone, normalizeCron } from './spec/cron.ts';
import { AUTOMATION_TRIGGER_EVENTS } from './event-subscriber.ts';
import { generateWebhookToken, hashWebhookToken, webhookUrl } from './webhook-token.ts';
import {
  deleteAutomation, findAutomation, findAutomationWithStats, insertAutomation, isActiveAgentOf, listAutomationsWithStats,
  setWebhookTokenHash, updateAutomation, type AutomationChanges, type AutomationWithStats,
} from './automation-repository.ts';

/** Keeps an automation's Temporal Schedule in step with its row (AutomationSchedules in schedule-client.ts). */
export type ScheduleSync = {
  /** Creates, updates, pauses or removes the schedule to match the row; fills next_run_at. Ignores non-cron automations. */
  sync(automationId: string): Promise<void>;
  remove(automationId: string): Promise<void>;
};

export type AutomationDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  schedules: ScheduleSync;
  log: Logger;
  /** Config.publicUrl: the base of webhook URLs. */
  publicUrl: string;
  /** What step destinations (an ai_generate base_url) must pass when stored. */
  destinations: DestinationPolicy;
};

export type NewAutomationInput = {
  name: string;
  agent_id: string;
  /** `schedule` already normalized to `cron`. */
  trigger_type: TriggerType;
  cron_expr: string | null;
  /** null: UTC. */
  timezone: string | null;
  event_filter: Record<string, unknown> | null;
  workflow_spec: unknown;
};

/**
 * A PATCH (reference UpdateAutomationRequest). trigger_type and agent_id cannot change: they are
 * accepted only with the automation's current value (clients that send the whole record back).
 */
export type AutomationUpdateInput = AutomationChanges & { trigger_type?: TriggerType; agent_id?: string };

/** A new automation; for a webhook trigger also its token and URL, which the caller sees this once. */
export type CreatedAutomation = { automation: AutomationWithStats; webhook: WebhookCredentials | null };
export type WebhookCredentials = { url: string; token: string };

export class AutomationCommands {
  private readonly d: AutomationDeps;

  constructor(deps: AutomationDeps) {
    this.d = deps;
  }

  async create(ctx: ActionContext, input: NewAutomationInput): Promise<CreatedAutomation> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    const t = input.trigger_type;
    const def = checkNewDefinition(input);
    checkStepDestinations(this.d.destinations, parseWorkflowSpec(def.workflow_spec));
    const id = randomUUID();
    const token = t === 'webhook' ? generateWebhookToken() : null;
    const row = await em.transactional(async (tx) => {
      // Another organization's agent is indistinguishable from a missing one.
      if (!(await isActiveAgentOf(tx, p.orgId, input.agent_id))) throw invalidField('agent_id', 'is not an active agent of your organization');
      // Counted under the organization's lock, so concurrent creates cannot pass the cap together.
      await assertBelowTierLimit(tx, p.orgId, 'automations');
      return insertAutomation(tx, {
        id, orgId: p.orgId, agentId: input.agent_id, name: input.name, triggerType: t, cronExpr: def.cron_expr ?? null,
        timezone: def.timezone!, eventFilter: def.event_filter ?? null, workflowSpec: input.workflow_spec,
        webhookTokenHash: token === null ? null : hashWebhookToken(token), createdBy: p.id,
      });
    });
    await this.d.audit.record(ctx, 'automation.create', {
      resourceType: 'automation', resourceId: id,
      details: { name: row.name, trigger_type: row.trigger_type, agent_id: row.agent_id, event_type: row.event_type },
    });
    await this.syncSchedule(id);
    return {
      automation: await this.reload(p, id),
      webhook: token === null ? null : { token, url: webhookUrl(this.d.publicUrl, id, token) },
    };
  }

  /** The caller's view: a human sees the organization's automations, an agent only its own. */
  async list(ctx: ActionContext): Promise<AutomationWithStats[]> {
    const p = callerOf(ctx);
    await this.requireReader(p);
    return listAutomationsWithStats(this.d.db(), p.orgId, p.type === 'agent' ? { agentId: p.id } : {});
  }

  async get(ctx: ActionContext, automationId: string): Promise<AutomationWithStats> {
    const p = callerOf(ctx);
    await this.requireReader(p);
    const a = await findAutomationWithStats(this.d.db(), p.orgId, automationId);
    if (!a || (p.type === 'agent' && a.agent_id !== p.id)) throw notFound('Automation');
    return a;
  }

  async update(ctx: ActionContext, automationId: string, input: AutomationUpdateInput): Promise<AutomationWithStats> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    const current = await findAutomation(em, p.orgId, automationId);
    if (!current) throw notFound('Automation');
    if (input.trigger_type !== undefined && input.trigger_type !== current.trigger_type) {
      throw invalidField('trigger_type', `cannot be changed (it is ${current.trigger_type}); create a new automation instead`);
    }
    if (input.agent_id !== undefined && input.agent_id.toLowerCase() !== current.agent_id) {
      throw invalidField('agent_id', 'cannot be changed; create a new automation for the other agent');
    }
    const { trigger_type: _t, agent_id: _a, ...changes } = input;
    if (!Object.values(changes).some((v) => v !== undefined)) {
      throw invalidField('body', 'give at least one of name, cron_expr, timezone, event_filter, workflow_spec, is_active');
    }
    // Only what is given is checked, so disabling an automation never fails on its older fields.
    const t = current.trigger_type;
    if (t === 'cron' && changes.cron_expr === null) throw invalidField('cron_expr', 'is required for trigger_type cron');
    if (t === 'event' && changes.event_filter === null) throw invalidField('event_filter', 'is required for trigger_type event');
    const def = checkDefinition(t, changes);
    if (def.workflow_spec !== undefined) checkStepDestinations(this.d.destinations, parseWorkflowSpec(def.workflow_spec));
    const c: AutomationChanges = { ...changes, ...def };
    const row = await em.transactional((tx) => updateAutomation(tx, p.orgId, current.id, c));
    if (!row) throw notFound('Automation');
    const fields = (Object.keys(c) as (keyof AutomationChanges)[]).filter((k) => c[k] !== undefined);
    await this.d.audit.record(ctx, 'automation.update', {
      resourceType: 'automation', resourceId: row.id, details: { fields, is_active: row.is_active, version: row.version },
    });
    await this.syncSchedule(row.id);
    return this.reload(p, row.id);
  }

  async delete(ctx: ActionContext, automationId: string): Promise<void> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    const current = await findAutomation(em, p.orgId, automationId);
    if (!current) throw notFound('Automation');
    const deleted = await em.transactional((tx) => deleteAutomation(tx, p.orgId, current.id));
    if (!deleted) throw notFound('Automation');
    await this.d.audit.record(ctx, 'automation.delete', {
      resourceType: 'automation', resourceId: current.id, details: { name: current.name, trigger_type: current.trigger_type },
    });
    try {
      await this.d.schedules.remove(current.id);
    } catch (e) {
      this.d.log.warn('automation schedule not removed now; the reconciler removes orphans', { automationId: current.id, error: (e as Error).message });
    }
  }

  /** Human-only (spec §4.16): a new token; the old one stops working at the commit. */
  async rotateWebhookToken(ctx: ActionContext, automationId: string): Promise<WebhookCredentials> {
    const p = callerOf(ctx);
    if (p.type !== 'user') throw forbidden('human-only: an agent cannot rotate a webhook token');
    const em = this.d.db();
    await requireManager(em, p);
    const current = await findAutomation(em, p.orgId, automationId);
    if (!current) throw notFound('Automation');
    if (current.trigger_type !== 'webhook') {
      throw badRequest(`only webhook-triggered automations have a webhook token; this one is triggered by ${current.trigger_type}`);
    }
    const token = generateWebhookToken();
    const row = await em.transactional((tx) => setWebhookTokenHash(tx, p.orgId, current.id, hashWebhookToken(token)));
    if (!row) throw notFound('Automation');
    await this.d.audit.record(ctx, 'automation.rotate_webhook_token', { resourceType: 'automation', resourceId: row.id });
    return { token, url: webhookUrl(this.d.publicUrl, row.id, token) };
  }

  /** Agents read (their own); a human must be an active user of the organization. */
  private async requireReader(p: Principal): Promise<void> {
    if (p.type === 'agent') return;
    if ((await roleOf(this.d.db(), p)) === null) throw forbidden('Not an active member of this organization');
  }

  /** Never fails the request: the row is committed, and the reconciler syncs what is behind. */
  private async syncSchedule(automationId: string): Promise<void> {
    try {
      await this.d.schedules.sync(automationId);
    } catch (e) {
      this.d.log.warn('automation schedule not synced now; the reconciler will', { automationId, error: (e as Error).message });
    }
  }

  /** The row as the response shows it, after the schedule sync wrote next_run_at. */
  private async reload(p: Principal, automationId: string): Promise<AutomationWithStats> {
    const a = await findAutomationWithStats(this.d.db(), p.orgId, automationId);
    // Deleted between the commit and now by a concurrent request.
    if (!a) throw notFound('Automation');
    return a;
  }
}

type Definition = Pick<AutomationChanges, 'cron_expr' | 'timezone' | 'event_filter' | 'workflow_spec'>;

/**
 * Everything a create checks about a new automation's trigger and steps, as stored (see
 * checkDefinition); the automation assistant holds its drafts to the same rules.
 */
export function checkNewDefinition(input: Pick<NewAutomationInput, 'trigger_type' | 'cron_expr' | 'timezone' | 'event_filter' | 'workflow_spec'>): Definition {
  const t = input.trigger_type;
  if (t === 'cron' && input.cron_expr === null) throw invalidField('cron_expr', 'is required for trigger_type cron');
  if (t === 'event' && input.event_filter === null) throw invalidField('event_filter', 'is required for trigger_type event, e.g. {"event_type": "secret.created"}');
  return checkDefinition(t, {
    cron_expr: input.cron_expr, timezone: input.timezone ?? 'UTC', event_filter: input.event_filter, workflow_spec: input.workflow_spec,
  });
}

/**
 * Checks the given parts of a definition against the trigger type; returns them as stored (the
 * cron expression trimmed, the zone canonical, the event filter's type trimmed). Absent parts
 * stay absent. A cron expression or an event filter for a trigger that has none is refused.
 */
function checkDefinition(t: TriggerType, d: Definition): Definition {
  const out: Definition = {};
  if (d.cron_expr !== undefined && d.cron_expr !== null) {
    if (t !== 'cron') throw invalidField('cron_expr', `only for trigger_type cron (this automation is ${t})`);
    normalizeCron(d.cron_expr);
    out.cron_expr = d.cron_expr.trim();
  } else if (d.cron_expr === null) {
    out.cron_expr = null;
  }
  if (d.timezone !== undefined) out.timezone = checkTimezone(d.timezone);
  if (d.event_filter !== undefined && d.event_filter !== null) {
    if (t !== 'event') {
      if (Object.keys(d.event_filter).length > 0) throw invalidField('event_filter', `only for trigger_type event (this automation is ${t})`);
      out.event_filter = null;
    } else {
      out.event_filter = checkEventFilter(d.event_filter);
    }
  } else if (d.event_filter === null) {
    out.event_filter = null;
  }
  if (d.workflow_spec !== undefined) {
    parseWorkflowSpec(d.workflow_spec);
    out.workflow_spec = d.workflow_spec;
  }
  return out;
}

function checkEventFilter(f: Record<string, unknown>): Record<string, unknown> {
  const v = f.event_type;
  const known = AUTOMATION_TRIGGER_EVENTS.join(', ');
  if (v === undefined || v === null) throw invalidField('event_filter.event_type', `is required; one of ${known}`);
  if (typeof v !== 'string') throw invalidField('event_filter.event_type', 'must be a string');
  const type = v.trim();
  if (!(AUTOMATION_TRIGGER_EVENTS as readonly string[]).includes(type)) {
    throw invalidField('event_filter.event_type', `${JSON.stringify(type.slice(0, 100))} cannot trigger an automation; one of ${known}`);
  }
  return { ...f, event_type: type };
}

