// Organization webhooks (spec §2.11, §4.17, §6): managed by owners and admins, each command owns
// its transaction and its audit record. A destination is checked when it is stored (scheme, host
// name, every address it resolves to); the delivery client checks again before every send, since
// DNS can change in between. The signing secret is shown once and kept only sealed; it never
// reaches a log line or an audit record.
import { randomUUID, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Logger } from '../log.ts';
import type { WebhooksClient } from './client.ts';
import { callerOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { lockOrganization } from '../org/organization-repository.ts';
import { Problem, conflict, invalidField, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { z } from 'zod';
import { cursorCodec, isBigintText } from '../paging/cursor.ts';
import { unknownEventNames } from '../events/catalogue.ts';
import { checkStoredDestination, type Exemptions, type Resolver } from '../net/outbound/index.ts';
import { generateWebhookSecret, sealWebhookSecret } from './webhook-secret.ts';
import { markBatchesStarted, type DeliveryStatus } from './delivery-repository.ts';
import {
  cancelPendingDeliveries, countWebhooks, deleteWebhook, findDelivery, findWebhook, insertWebhook, listDeliveries,
  listWebhooks, requeueDelivery, updateWebhook, withAttempts,
  type DeliveryKey, type DeliveryWithAttempts, type WebhookChanges, type WebhookRow,
} from './webhook-repository.ts';

export const MAX_WEBHOOKS = 50;
export { RESOLVE_TIMEOUT_MS } from '../net/outbound/index.ts';

export type WebhookDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  /** Seals signing secrets (Core.webhookKey). */
  webhookKey: KeyObject;
  /** Address ranges exempted from the outbound policy (OUTBOUND_ALLOW_CIDRS); empty in production. */
  exemptions: Exemptions;
  resolver: Resolver;
  client: Pick<WebhooksClient, 'startBatch'>;
  log: Logger;
};

export type NewWebhookInput = { url: string; events: string[]; description: string | null };
export type { WebhookChanges } from './webhook-repository.ts';

/** A new webhook and its signing secret, which the caller sees this once. */
export type CreatedWebhook = { webhook: WebhookRow; secret: string };

/** `after`: the decoded cursor (deliveryCursor). */
export type DeliveryQuery = { status?: DeliveryStatus; limit: number; after?: [createdUs: string, id: string] };
export type DeliveryPage = { deliveries: DeliveryWithAttempts[]; nextCursor: string | null };

/** Pages of a webhook's deliveries, newest first: the key is the last delivery's [created_us, id]. */
export const deliveryCursor = cursorCodec('webhook-deliveries', z.tuple([z.string().refine(isBigintText), z.string().refine(isUuid)]));

export class WebhookCommands {
  private readonly d: WebhookDeps;

  constructor(deps: WebhookDeps) {
    this.d = deps;
  }

  async create(ctx: ActionContext, input: NewWebhookInput): Promise<CreatedWebhook> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    const events = checkEvents(input.events);
    await this.checkDestination(input.url);
    // The sealed secret is bound to the webhook's id, so the id comes first.
    const id = randomUUID();
    const secret = generateWebhookSecret();
    const webhook = await em.transactional(async (tx) => {
      // Counted under the organization's lock, so concurrent creates cannot pass the cap together.
      await lockOrganization(tx, p.orgId);
      const used = await countWebhooks(tx, p.orgId);
      if (used >= MAX_WEBHOOKS) {
        throw new Problem(403, `Webhook limit reached (${used}/${MAX_WEBHOOKS} per organization); delete one first`, {
          type: 'resource_limit_exceeded', title: 'Resource Limit Exceeded', extras: { resource: 'webhooks', limit: MAX_WEBHOOKS, used },
        });
      }
      return insertWebhook(tx, {
        id, orgId: p.orgId, url: input.url, events, description: input.description,
        secretSealed: sealWebhookSecret(this.d.webhookKey, id, secret), createdBy: p.id,
      });
    });
    await this.d.audit.record(ctx, 'webhook.create', { resourceType: 'webhook', resourceId: id, details: auditDetails(webhook) });
    return { webhook, secret };
  }

  async list(ctx: ActionContext): Promise<WebhookRow[]> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    return listWebhooks(em, p.orgId);
  }

  async get(ctx: ActionContext, webhookId: string): Promise<WebhookRow> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    const w = await findWebhook(em, p.orgId, webhookId);
    if (!w) throw notFound('Webhook');
    return w;
  }

  async update(ctx: ActionContext, webhookId: string, changes: WebhookChanges): Promise<WebhookRow> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    const c: WebhookChanges = { ...changes };
    if (c.events !== undefined) c.events = checkEvents(c.events);
    if (c.url !== undefined) await this.checkDestination(c.url);
    const result = await em.transactional(async (tx) => {
      const row = await updateWebhook(tx, p.orgId, webhookId, c);
      if (!row) return null;
      // A disabled webhook sends nothing more, also not what was already queued for it.
      const cancelled = c.is_active === false ? await cancelPendingDeliveries(tx, p.orgId, row.id) : 0;
      return { row, cancelled };
    });
    if (!result) throw notFound('Webhook');
    const fields = (Object.keys(c) as (keyof WebhookChanges)[]).filter((k) => c[k] !== undefined);
    await this.d.audit.record(ctx, 'webhook.update', {
      resourceType: 'webhook', resourceId: result.row.id,
      details: { fields, ...auditDetails(result.row), ...(result.cancelled > 0 ? { cancelled_deliveries: result.cancelled } : {}) },
    });
    return result.row;
  }

  async delete(ctx: ActionContext, webhookId: string): Promise<void> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    // Disabled first, in its own commit: from then on the dispatcher creates no delivery for it,
    // so the delete's cascade does not meet a delivery insert that is waiting on the webhook row
    // (a deadlock under load). One retry covers an insert that was already under way.
    const found = await em.transactional(async (tx) => {
      const row = await updateWebhook(tx, p.orgId, webhookId, { is_active: false });
      if (row) await cancelPendingDeliveries(tx, p.orgId, row.id);
      return row !== null;
    });
    if (!found) throw notFound('Webhook');
    await retryOnDeadlock(() => em.transactional((tx) => deleteWebhook(tx, p.orgId, webhookId)));
    await this.d.audit.record(ctx, 'webhook.delete', { resourceType: 'webhook', resourceId: webhookId });
  }

  /** The webhook's deliveries, newest first, with their attempts. */
  async deliveries(ctx: ActionContext, webhookId: string, q: DeliveryQuery): Promise<DeliveryPage> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    const after: DeliveryKey | undefined = q.after && { createdUs: q.after[0], id: q.after[1] };
    if (!(await findWebhook(em, p.orgId, webhookId))) throw notFound('Webhook');
    const rows = await listDeliveries(em, p.orgId, webhookId, { status: q.status, limit: q.limit, after });
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    return {
      deliveries: await withAttempts(em, page),
      nextCursor: rows.length > q.limit && last ? deliveryCursor.encode([last.created_us, last.id]) : null,
    };
  }

  async delivery(ctx: ActionContext, webhookId: string, deliveryId: string): Promise<DeliveryWithAttempts> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    return this.loadDelivery(em, p.orgId, webhookId, deliveryId);
  }

  /**
   * Sends a finished delivery again as a new run. The run is committed before its workflow is
   * started, so a start that fails (Temporal unreachable) is only late: the worker's sweeper
   * starts every pending run that has no workflow yet.
   */
  async retry(ctx: ActionContext, webhookId: string, deliveryId: string): Promise<DeliveryWithAttempts> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    const queued = await em.transactional((tx) => requeueDelivery(tx, p.orgId, webhookId, deliveryId));
    if (queued === null) {
      // Nothing changed: tell why (not found, still running, or its webhook is off).
      const current = await this.loadDelivery(em, p.orgId, webhookId, deliveryId);
      if (current.status === 'pending') throw conflict('delivery is still in progress');
      throw conflict('webhook is disabled');
    }
    await this.startRun(deliveryId, queued.batch_id);
    await this.d.audit.record(ctx, 'webhook.delivery_retry', {
      resourceType: 'webhook_delivery', resourceId: deliveryId, details: { webhook_id: webhookId, run: queued.run },
    });
    return this.loadDelivery(em, p.orgId, webhookId, deliveryId);
  }

  /** Never fails the request: the run is committed, and the sweeper starts what is left unstarted. */
  private async startRun(deliveryId: string, batchId: string): Promise<void> {
    try {
      await this.d.client.startBatch(batchId);
    } catch (e) {
      this.d.log.warn('webhook retry: workflow not started now; the sweeper will start it', { deliveryId, batchId, error: (e as Error).message });
      return;
    }
    try {
      await markBatchesStarted(this.d.db(), [batchId]);
    } catch (e) {
      // The sweeper's start of the same batch is a no-op (one workflow id per batch).
      this.d.log.warn('webhook retry: batch started but not marked', { deliveryId, batchId, error: (e as Error).message });
    }
  }

  private async loadDelivery(em: EntityManager, orgId: string, webhookId: string, deliveryId: string): Promise<DeliveryWithAttempts> {
    const row = await findDelivery(em, orgId, webhookId, deliveryId);
    if (!row) throw notFound('Delivery');
    return (await withAttempts(em, [row]))[0]!;
  }

  /**
   * Refuses a destination the delivery client would refuse: the URL policy first (no network),
   * then every address its name resolves to now. A literal address was judged by the policy.
   */
  private checkDestination(url: string): Promise<void> {
    return checkStoredDestination(url, 'url', this.d);
  }
}

/** Runs `work` again once if PostgreSQL chose it as a deadlock victim. */
async function retryOnDeadlock<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if ((e as { code?: unknown }).code !== '40P01') throw e;
    return work();
  }
}

/** The subscribed events, deduplicated in their given order; a 400 names every unknown one. */
function checkEvents(events: string[]): string[] {
  const unknown = unknownEventNames(events);
  if (unknown.length > 0) {
    throw invalidField('events', `unknown event name${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} ("*" subscribes to every event)`);
  }
  return [...new Set(events)];
}

/**
 * What the audit log keeps of a webhook: its destination's origin only (receivers often put a
 * token in the path or query, e.g. chat-service hook URLs), the events and the state.
 */
function auditDetails(w: WebhookRow): Record<string, unknown> {
  let origin: string;
  try { origin = new URL(w.url).origin; } catch { origin = 'invalid'; }
  return { url_origin: origin, events: w.events, is_active: w.is_active };
}
