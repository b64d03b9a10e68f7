// Writes audit events in batches, one statement per batch: a compare-and-swap of the chain head
// and the insert of the linked events. Callers that must not proceed without a durable record
// (secret reads, credential changes) await the promise; request-level records do not.
//
// Each chain has at most one batch in flight; events that arrive meanwhile wait for the next.
// The next batch is formed one event-loop turn later (setImmediate), so every read that
// finished in this turn joins it: batches grow with load, and a statement's fixed cost (about
// seven rows' worth in Postgres) and its commit are shared by more records.
// Appends go over one dedicated connection, so there is no pool checkout on this path.

import { randomUUID, type KeyObject } from 'node:crypto';
import type { HotReads } from '../../db/hot-reads.ts';
import { chainHash, canonicalJson, type ChainedFields } from './chain-hash.ts';
import type { Logger } from '../log.ts';
import type { AppendGuard, AppendPrecondition } from './append-precondition.ts';
import { appendBatch, appendBatchLocked, appendStatement, EVENT_COLUMNS, readChainHead, type AppendResult, type LinkedBatch } from './audit-repository.ts';
import { auditAppendSeconds, auditBatchSize } from '../observability/metrics.ts';

export type AuditEventInput = {
  orgId: string | null;
  action: string;
  actorType?: string | null;
  actorId?: string | null;
  resourceType?: string | null;
  resourceId?: string | null;
  details?: Record<string, unknown>;
  ipAddress?: string | null;
  requestId?: string | null;
  /** Write this record only if the writer's precondition holds for these values. */
  guard?: AppendGuard;
};

type Pending = { fields: ChainedFields; detailsJson: string; guard: AppendGuard | undefined; resolve: () => void; reject: (e: unknown) => void };

/** A batch linked from `prev`: its column arrays (events, then guards) and the head it leaves. */
type Linked = { prev: string; last: string; columns: unknown[][]; guards: unknown[][] };

type ChainState = {
  queue: Pending[];
  /** The batch being written, if any; it settles after its events are resolved or rejected. */
  inFlight: Promise<void> | undefined;
  /** The chain's head as this process last wrote or read it; undefined means read it first. */
  head: string | undefined;
  scheduled: boolean;
};

const MAX_BATCH = 500;
const MAX_ATTEMPTS = 10;

export class AuditWriter {
  private readonly chains = new Map<string, ChainState>();
  private readonly hot: HotReads;
  private readonly key: KeyObject;
  private readonly log: Logger;

  private readonly precondition: AppendPrecondition;
  /** The append statement for the precondition (audit-repository.ts). */
  private readonly statement: string;

  /** `precondition`: what a guarded record's guard values are checked against (one kind per process). */
  constructor(hot: HotReads, chainKey: KeyObject, log: Logger, precondition: AppendPrecondition) {
    this.hot = hot;
    this.precondition = precondition;
    this.statement = appendStatement(precondition);
    this.key = chainKey;
    this.log = log;
  }

  /** Queues an event; the promise settles when it is committed (or its batch failed). */
  record(e: AuditEventInput): Promise<void> {
    const fields: ChainedFields = {
      id: randomUUID(),
      chainKey: e.orgId ?? 'system',
      orgId: e.orgId,
      action: e.action,
      actorType: e.actorType ?? null,
      actorId: e.actorId ?? null,
      resourceType: e.resourceType ?? null,
      resourceId: e.resourceId ?? null,
      details: e.details ?? {},
      ipAddress: e.ipAddress ?? null,
      requestId: e.requestId ?? null,
      createdAt: new Date(),
    };
    // One canonical text of the details serves the hash and the stored jsonb, on every attempt.
    const detailsJson = canonicalJson(fields.details);
    let st = this.chains.get(fields.chainKey);
    if (!st) this.chains.set(fields.chainKey, st = { queue: [], inFlight: undefined, head: undefined, scheduled: false });
    const done = new Promise<void>((resolve, reject) => st.queue.push({ fields, detailsJson, guard: e.guard, resolve, reject }));
    this.schedule(fields.chainKey, st);
    return done;
  }

  /** Fire-and-forget variant: a failure is logged, never thrown at the caller. */
  recordQuietly(e: AuditEventInput): void {
    this.record(e).catch((err) => this.log.error('audit record failed', { action: e.action, error: String(err) }));
  }

  /** Waits until everything queued so far is written. */
  async drain(): Promise<void> {
    for (;;) {
      const busy = [...this.chains.values()].filter((st) => st.inFlight || st.queue.length > 0 || st.scheduled);
      if (busy.length === 0) return;
      await Promise.all(busy.map((st) => st.inFlight ?? new Promise((r) => setImmediate(r))));
    }
  }

  // No timer: a lone event is written at once (one event-loop turn later); events that arrive
  // while a batch is in flight form the next batch, so batching adds no latency when idle.
  private schedule(chain: string, st: ChainState): void {
    if (st.scheduled || st.inFlight) return;
    st.scheduled = true;
    setImmediate(() => {
      st.scheduled = false;
      if (!st.inFlight && st.queue.length > 0) this.writeNext(chain, st);
    });
  }

  private writeNext(chain: string, st: ChainState): void {
    const items = st.queue.splice(0, MAX_BATCH);
    auditBatchSize.observe(items.length);
    const timer = auditAppendSeconds.startTimer();
    st.inFlight = this.append(chain, st, items).then(
      (written) => { timer({ result: 'written' }); for (const p of written) p.resolve(); },
      (e: unknown) => { timer({ result: 'failed' }); st.head = undefined; for (const p of items) p.reject(e); },
    ).finally(() => {
      st.inFlight = undefined;
      if (st.queue.length > 0) this.schedule(chain, st);
      else if (this.chains.size > 10_000) this.chains.delete(chain); // bound the map; the head is re-read
    });
  }

  private link(prev: string, items: Pending[]): Linked {
    const columns: unknown[][] = Array.from({ length: EVENT_COLUMNS }, () => []);
    const guards: unknown[][] = Array.from({ length: this.precondition.columns }, () => []);
    let hash = prev;
    for (const [i, { fields: f, detailsJson, guard }] of items.entries()) {
      if (guard) [i + 1, ...guard].forEach((v, c) => guards[c]!.push(v));
      const next = chainHash(this.key, hash, f, detailsJson);
      const row = [f.id, f.chainKey, f.orgId, f.action, f.actorType, f.actorId, f.resourceType, f.resourceId,
        detailsJson, f.ipAddress, f.requestId, f.createdAt, hash, next];
      for (let i = 0; i < row.length; i++) columns[i]!.push(row[i]);
      hash = next;
    }
    return { prev, last: hash, columns, guards };
  }

  /**
   * Links the batch from the head this process knows and writes it in one statement; resolves
   * with the records written. When another writer (another process) moved the head meanwhile,
   * nothing is written; the batch is then relinked and written under the head's row lock, which
   * cannot lose (appendBatchLocked). When guards are stale,
   * nothing is written either: those records are rejected with the precondition's error and the rest
   * relinked, which needs no new head.
   */
  private async append(chain: string, st: ChainState, batch: Pending[]): Promise<Pending[]> {
    let items = batch;
    // After a lost race the batch is written under the head's row lock: another process that
    // keeps appending (api processes under load on one organization) cannot starve this one.
    let contended = false;
    for (let attempt = 0; attempt < MAX_ATTEMPTS;) {
      const batchFrom = (prev: string) => {
        const l = this.link(prev, items);
        return { columns: l.columns, guards: l.guards, chain, prev: l.prev, last: l.last, count: items.length };
      };
      const { result: { inserted, stale }, batch: linked } = contended
        ? await appendBatchLocked(this.hot, this.statement, chain, batchFrom)
        : await this.appendFromHead(st.head ?? await this.readHead(chain), batchFrom);
      if (stale) {
        const staleOrds = new Set(stale);
        const rejected = items.filter((_, i) => staleOrds.has(i + 1));
        for (const p of rejected) p.reject(this.precondition.staleError());
        items = items.filter((_, i) => !staleOrds.has(i + 1));
        if (items.length === 0) return items;
        continue; // not an attempt: each pass removes at least one record, so this ends
      }
      if (inserted === items.length) {
        st.head = linked.last;
        return items;
      }
      st.head = undefined;
      contended = true;
      attempt++;
    }
    throw new Error(`audit chain ${chain} is too contended to append to`);
  }

  /** The fast path: one statement, a compare-and-swap from the head this process knows. */
  private async appendFromHead(head: string, batchFrom: (prev: string) => LinkedBatch): Promise<{ result: AppendResult; batch: LinkedBatch }> {
    const batch = batchFrom(head);
    return { result: await appendBatch(this.hot, this.statement, batch), batch };
  }

  private readHead(chain: string): Promise<string> {
    return readChainHead(this.hot, chain);
  }
}
