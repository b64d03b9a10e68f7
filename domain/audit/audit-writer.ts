// Writes audit events in small batches: one transaction per batch locks each chain head,
// links the events and inserts them. Callers that must not proceed without a durable record
// (secret reads, credential changes) await the promise; request-level records do not.
import { randomUUID, type KeyObject } from 'node:crypto';
import type { HotReads } from '../../db/hot-reads.ts';
import { chainHash, GENESIS_HASH, canonicalJson, type ChainedFields } from './chain-hash.ts';
import type { Logger } from '../log.ts';

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
};

type Pending = { fields: ChainedFields; resolve: () => void; reject: (e: unknown) => void };

const MAX_BATCH = 500;

export class AuditWriter {
  private queue: Pending[] = [];
  /** The running flush loop, if any: events arriving meanwhile form the next batch. */
  private loop: Promise<void> | undefined;
  private readonly sql: HotReads;
  private readonly key: KeyObject;
  private readonly log: Logger;
  /** The last head hash this process wrote or read, per chain. */
  private readonly heads = new Map<string, string>();

  constructor(sql: HotReads, chainKey: KeyObject, log: Logger) {
    this.sql = sql;
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
    const done = new Promise<void>((resolve, reject) => this.queue.push({ fields, resolve, reject }));
    this.loop ??= this.runLoop();
    return done;
  }

  /** Fire-and-forget variant: a failure is logged, never thrown at the caller. */
  recordQuietly(e: AuditEventInput): void {
    this.record(e).catch((err) => this.log.error('audit record failed', { action: e.action, error: String(err) }));
  }

  /** Waits until everything queued so far is written. */
  async drain(): Promise<void> {
    while (this.loop) await this.loop;
  }

  // No timer: the first event is written at once; events that arrive while a batch is being
  // written are batched together, so batching grows with load and adds no latency when idle.
  private async runLoop(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.flush();
    } finally {
      this.loop = undefined;
    }
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    const byChain = new Map<string, Pending[]>();
    for (const p of batch) byChain.set(p.fields.chainKey, [...(byChain.get(p.fields.chainKey) ?? []), p]);
    await Promise.all([...byChain.entries()].map(async ([chain, items]) => {
      try {
        await this.append(chain, items.map((p) => p.fields));
        for (const p of items) p.resolve();
      } catch (e) {
        for (const p of items) p.reject(e);
      }
    }));
  }

  /**
   * Appends events to one chain in a single statement: a compare-and-swap of the chain head
   * (from the hash this process last saw) and the insert, atomic together. When another writer
   * moved the head meanwhile, nothing is written; the head is re-read and the batch relinked.
   */
  private async append(chain: string, events: ChainedFields[]): Promise<void> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const prevHead = this.heads.get(chain) ?? (await this.readHead(chain));
      const values: unknown[] = [];
      let prev = prevHead;
      for (const f of events) {
        // One canonical text of the details serves both the hash and the stored jsonb.
        const detailsJson = canonicalJson(f.details);
        const hash = chainHash(this.key, prev, f, detailsJson);
        values.push(f.id, f.chainKey, f.orgId, f.action, f.actorType, f.actorId, f.resourceType, f.resourceId,
          detailsJson, f.ipAddress, f.requestId, f.createdAt, prev, hash);
        prev = hash;
      }
      const n = 14;
      const tuples = events.map((_, i) => {
        const b = i * n;
        return `($${b + 1}::uuid, $${b + 2}, $${b + 3}::uuid, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8}, $${b + 9}::jsonb, $${b + 10}, $${b + 11}, $${b + 12}::timestamptz, $${b + 13}, $${b + 14})`;
      });
      const k = events.length * n;
      const rows = await this.sql.rows<{ id: string }>(
        `WITH head AS (
           UPDATE audit_chain_heads SET last_hash = $${k + 1}, last_seq = last_seq + $${k + 2}
           WHERE chain_key = $${k + 3} AND last_hash = $${k + 4} RETURNING 1)
         INSERT INTO audit_events (id, chain_key, org_id, action, actor_type, actor_id, resource_type, resource_id, details, ip_address, request_id, created_at, prev_hash, integrity_hash)
         SELECT v.* FROM (VALUES ${tuples.join(', ')}) AS v WHERE EXISTS (SELECT 1 FROM head)
         RETURNING id`,
        [...values, prev, events.length, chain, prevHead]);
      if (rows.length === events.length) {
        this.heads.set(chain, prev);
        return;
      }
      this.heads.delete(chain); // another writer advanced the head: read it again
    }
    throw new Error(`audit chain ${chain} is too contended to append to`);
  }

  private async readHead(chain: string): Promise<string> {
    await this.sql.rows('INSERT INTO audit_chain_heads (chain_key, last_hash) VALUES ($1, $2) ON CONFLICT DO NOTHING', [chain, GENESIS_HASH]);
    const rows = await this.sql.rows<{ last_hash: string }>('SELECT last_hash FROM audit_chain_heads WHERE chain_key = $1', [chain]);
    return rows[0]!.last_hash;
  }
}
