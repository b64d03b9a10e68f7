// One round of one batch: record each pending delivery's attempt, sign the event's JSON, send it
// through the SSRF-safe client, and record the outcome. The body is the same bytes on every
// attempt (it is built from the stored event); only the timestamp header and its signature change.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OutboundClient, OutboundResult } from '../net/outbound/client.ts';
import { bodyExcerpt } from '../net/outbound/client.ts';
import { openWebhookSecret } from './webhook-secret.ts';
import { signedHeaders, type SigningSecrets } from './signature.ts';
import { webhookDeliveries } from '../observability/metrics.ts';
import { beginRound, cancelOrphans, finishAttempts, pendingInBatch, type AttemptOutcome, type AttemptTarget, type FinishedAttempt } from './delivery-repository.ts';

/** The documented delivery body (README "Webhooks"): the stored event, never a secret value. */
export function deliveryBody(t: Pick<AttemptTarget, 'event_id' | 'event_type' | 'created_at' | 'org_id' | 'payload'>): string {
  return JSON.stringify({ id: t.event_id, type: t.event_type, created_at: t.created_at.toISOString(), org_id: t.org_id, data: t.payload });
}

/** Statuses worth another attempt: the receiver is busy, slow or briefly broken. */
const retryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/** Requests of one round in flight at once (a batch's deliveries mostly go to one receiver). */
const CONCURRENCY = 16;
/** Outcomes are written this many at a time (and at the end of the round): one statement, not one per request. */
const FLUSH_EVERY = 32;
const EXCERPT_BYTES = 1024;
// PostgreSQL text cannot hold NUL; a receiver may answer with anything.
const printable = (s: string) => s.replace(/\u0000/g, '\uFFFD');

export type WebhookSenderDeps = { em: () => EntityManager; webhookKey: KeyObject; outbound: OutboundClient };

export class WebhookSender {
  private readonly d: WebhookSenderDeps;

  constructor(deps: WebhookSenderDeps) {
    this.d = deps;
  }

  /** Round `round` of the batch; returns how many of its deliveries are still pending. */
  async round(batchId: string, round: number): Promise<number> {
    const em = this.d.em();
    await cancelOrphans(em, batchId);
    const targets = await beginRound(em, batchId, round);
    // Opened here, in the activity, never carried through Temporal history or logged.
    const secrets = new Map<string, SigningSecrets>();
    const secretOf = (t: AttemptTarget) => {
      let s = secrets.get(t.webhook_id);
      if (s === undefined) {
        const previous = t.previous_secret_sealed === null ? null : openWebhookSecret(this.d.webhookKey, t.webhook_id, t.previous_secret_sealed);
        secrets.set(t.webhook_id, s = { current: openWebhookSecret(this.d.webhookKey, t.webhook_id, t.secret_sealed), previous });
      }
      return s;
    };
    // Outcomes wait in a buffer until it is full or the round ends; a crash before the write
    // leaves begun attempts without an outcome, and the next round sends those again.
    const finished: FinishedAttempt[] = [];
    let writing: Promise<void> = Promise.resolve();
    const flush = () => {
      const chunk = finished.splice(0);
      writing = writing.then(() => finishAttempts(this.d.em(), chunk));
      return writing;
    };
    let next = 0;
    const worker = async () => {
      for (let t = targets[next++]; t; t = targets[next++]) {
        finished.push({ delivery_id: t.delivery_id, run: t.run, attempt: t.attempt, ...await this.send(t, secretOf(t)) });
        if (finished.length >= FLUSH_EVERY) void flush().catch(() => undefined); // the final flush reports failures
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, targets.length) }, worker));
    await flush();
    return pendingInBatch(em, batchId);
  }

  private async send(t: AttemptTarget, secret: SigningSecrets): Promise<AttemptOutcome> {
    const body = deliveryBody(t);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'ocv-vault-webhooks/1',
      ...signedHeaders(secret, t.event_id, Math.floor(Date.now() / 1000), body),
    };
    const outcome = outcomeOf(await this.d.outbound.send({ method: 'POST', url: t.url, headers, body, allowHttp: false }));
    webhookDeliveries.inc({ outcome: outcome.verdict });
    return outcome;
  }
}

export function outcomeOf(result: OutboundResult): AttemptOutcome {
  const statusCode = result.ok ? result.status : result.status ?? null;
  const base = { durationMs: result.durationMs, statusCode, responseExcerpt: result.ok ? printable(bodyExcerpt(result.body, EXCERPT_BYTES)) : null };
  if (result.ok) {
    if (result.status >= 200 && result.status < 300) return { ...base, verdict: 'succeeded', error: null };
    const error = `the receiver answered ${result.status}`;
    return { ...base, verdict: retryableStatus(result.status) ? 'retry' : 'gave_up', error };
  }
  // A 2xx whose body was too long still means the receiver took the event.
  if (result.kind === 'too_large' && statusCode !== null && statusCode >= 200 && statusCode < 300) return { ...base, verdict: 'succeeded', error: null };
  const error = printable(`${result.kind}: ${result.message}`);
  // A refused address or a redirect will not change by trying again; nor will a 4xx.
  if (result.kind === 'refused' || result.kind === 'redirect') return { ...base, verdict: 'gave_up', error };
  if (statusCode !== null && statusCode >= 400 && !retryableStatus(statusCode)) return { ...base, verdict: 'gave_up', error };
  return { ...base, verdict: 'retry', error };
}
