// One attempt of one delivery run: record the attempt, sign the event's JSON, send it through the
// SSRF-safe client, record the outcome, and say whether Temporal should try again. The body is
// the same bytes on every attempt (it is built from the stored event); only the timestamp header
// and its signature change.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OutboundClient, OutboundResult } from '../net/outbound/client.ts';
import { bodyExcerpt } from '../net/outbound/client.ts';
import { openWebhookSecret } from './webhook-secret.ts';
import { signedHeaders } from './signature.ts';
import { beginAttempt, finishAttempt, settleUnsendable, type AttemptTarget } from './delivery-repository.ts';

export type AttemptResult =
  | { kind: 'succeeded' }
  /** The run may not send (finished, superseded, webhook disabled or deleted): stop quietly. */
  | { kind: 'stopped'; status: string }
  | { kind: 'retry'; message: string }
  /** Trying again cannot help (a 4xx other than 408/429, a redirect, a refused address). */
  | { kind: 'give_up'; message: string };

/** The documented delivery body (README "Webhooks"): the stored event, never a secret value. */
export function deliveryBody(t: Pick<AttemptTarget, 'event_id' | 'event_type' | 'created_at' | 'org_id' | 'payload'>): string {
  const createdAt = t.created_at instanceof Date ? t.created_at.toISOString() : new Date(t.created_at).toISOString();
  return JSON.stringify({ id: t.event_id, type: t.event_type, created_at: createdAt, org_id: t.org_id, data: t.payload });
}

/** Statuses worth another attempt: the receiver is busy, slow or briefly broken. */
const retryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

const EXCERPT_BYTES = 1024;
// PostgreSQL text cannot hold NUL; a receiver may answer with anything.
const printable = (s: string) => s.replace(/\u0000/g, '\uFFFD');

export type WebhookSenderDeps = { em: () => EntityManager; webhookKey: KeyObject; outbound: OutboundClient };

export class WebhookSender {
  private readonly d: WebhookSenderDeps;

  constructor(deps: WebhookSenderDeps) {
    this.d = deps;
  }

  async attempt(deliveryId: string, run: number): Promise<AttemptResult> {
    const em = this.d.em();
    const target = await beginAttempt(em, deliveryId, run);
    if (!target) return { kind: 'stopped', status: await settleUnsendable(em, deliveryId, run) };
    const body = deliveryBody(target);
    const secret = openWebhookSecret(this.d.webhookKey, target.webhook_id, target.secret_sealed);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'ocv-vault-webhooks/1',
      ...signedHeaders(secret, target.event_id, Math.floor(Date.now() / 1000), body),
    };
    const result = await this.d.outbound.send({ method: 'POST', url: target.url, headers, body, allowHttp: false });
    const verdict = judge(result);
    await finishAttempt(em, deliveryId, run, target.attempt, {
      succeeded: verdict.kind === 'succeeded',
      durationMs: result.durationMs,
      statusCode: result.ok ? result.status : result.status ?? null,
      responseExcerpt: result.ok ? printable(bodyExcerpt(result.body, EXCERPT_BYTES)) : null,
      error: verdict.kind === 'succeeded' ? null : verdict.message,
    });
    return verdict;
  }
}

function judge(result: OutboundResult): Exclude<AttemptResult, { kind: 'stopped' }> {
  if (result.ok) {
    if (result.status >= 200 && result.status < 300) return { kind: 'succeeded' };
    const message = `the receiver answered ${result.status}`;
    return retryableStatus(result.status) ? { kind: 'retry', message } : { kind: 'give_up', message };
  }
  // A 2xx whose body was too long still means the receiver took the event.
  if (result.kind === 'too_large' && result.status !== undefined && result.status >= 200 && result.status < 300) return { kind: 'succeeded' };
  const message = `${result.kind}: ${result.message}`;
  if (result.kind === 'refused' || result.kind === 'redirect') return { kind: 'give_up', message };
  if (result.status !== undefined && !retryableStatus(result.status) && result.status >= 400) return { kind: 'give_up', message };
  return { kind: 'retry', message };
}
