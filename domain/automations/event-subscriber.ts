// The automations' share of the event outbox (spec §6.3): each event starts a run of every active
// event automation of its organization whose `event_filter.event_type` names it, with the event
// injected as `_event {id, type, payload}`. The run's id is derived from the event and the
// automation, so a dispatch repeated after a crash creates and starts nothing new.
//
// Loop guard: an event caused by an automation's own agent does not trigger that automation. A
// run acts as its agent, so a secret.rotated automation that rotates a secret would otherwise
// trigger itself forever.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../log.ts';
import type { EventSubscriber } from '../events/dispatcher.ts';
import type { OutboxEvent } from '../events/outbox.ts';
import type { AutomationsClient } from './client.ts';
import { eventMatches, insertRun } from './run-repository.ts';
import { derivedUuid } from '../ids.ts';
import { Problem } from '../errors.ts';

/** Spec §6.3: the events an automation may be triggered by. */
export const AUTOMATION_TRIGGER_EVENTS = [
  'secret.created', 'secret.updated', 'secret.rotated', 'secret.deleted',
  'policy.created', 'policy.updated', 'policy.deleted',
] as const;

export class AutomationEventSubscriber implements EventSubscriber {
  readonly name = 'automations';
  private readonly em: () => EntityManager;
  private readonly client: Pick<AutomationsClient, 'startRun'>;
  private readonly log: Logger;
  private readonly runTimeoutSeconds: number;

  constructor(em: () => EntityManager, client: Pick<AutomationsClient, 'startRun'>, log: Logger, runTimeoutSeconds: number) {
    this.em = em;
    this.client = client;
    this.log = log;
    this.runTimeoutSeconds = runTimeoutSeconds;
  }

  async dispatch(events: OutboxEvent[]): Promise<void> {
    const ids = events.filter((e) => (AUTOMATION_TRIGGER_EVENTS as readonly string[]).includes(e.event_type)).map((e) => e.id);
    if (ids.length === 0) return;
    const em = this.em();
    const matches = await eventMatches(em, ids);
    for (const m of matches) {
      const runId = derivedUuid(`event:${m.event_id}:${m.automation_id}`);
      const context = { _event: { id: m.event_id, type: m.event_type, payload: m.payload, created_at: m.created_at.toISOString() } };
      try {
        const { run } = await em.transactional((tx) => insertRun(tx, {
          id: runId, orgId: m.org_id, automationId: m.automation_id, agentId: m.agent_id, source: 'event', context,
        }));
        if (run.status !== 'running') continue;
      } catch (e) {
        if (e instanceof Problem && e.status === 403) {
          this.log.warn('event automation not run: monthly run limit reached', { automationId: m.automation_id, orgId: m.org_id });
          continue;
        }
        throw e;
      }
      // Started again on a repeated dispatch too: a no-op when its workflow exists.
      await this.client.startRun({
        runId, orgId: m.org_id, automationId: m.automation_id, agentId: m.agent_id, triggerType: 'event',
        automationName: m.name, timeoutSeconds: this.runTimeoutSeconds,
      }, { workflowSpec: m.workflow_spec, context });
    }
  }
}
