// Writes audit events in small batches: one transaction per batch locks each chain head,
// links the events and inserts them. Callers that must not proceed without a durable record
// (secret reads, credential changes) await the promise; request-level records do not.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
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
  private readonly em: () => EntityManager;
  private readonly key: Buffer;
  private readonly log: Logger;

  constructor(em: () => EntityManager, chainKey: Buffer, log: Logger) {
    this.em = em;
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
      details: JSON.parse(canonicalJson(e.details ?? {})) as Record<string, unknown>,
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
    try {
      await this.em().transactional(async (tx) => {
        const byChain = new Map<string, Pending[]>();
        for (const p of batch) byChain.set(p.fields.chainKey, [...(byChain.get(p.fields.chainKey) ?? []), p]);
        // Fixed lock order across writers, so concurrent batches never deadlock.
        for (const chain of [...byChain.keys()].sort()) {
          const items = byChain.get(chain)!;
          await tx.execute('INSERT INTO audit_chain_heads (chain_key, last_hash) VALUES (?, ?) ON CONFLICT DO NOTHING', [chain, GENESIS_HASH]);
          const head = await tx.execute<{ last_hash: string }[]>('SELECT last_hash FROM audit_chain_heads WHERE chain_key = ? FOR UPDATE', [chain]);
          let prev = head[0]!.last_hash;
          const values: unknown[] = [];
          for (const { fields: f } of items) {
            const hash = chainHash(this.key, prev, f);
            values.push(f.id, f.chainKey, f.orgId, f.action, f.actorType, f.actorId, f.resourceType, f.resourceId,
              JSON.stringify(f.details), f.ipAddress, f.requestId, f.createdAt, prev, hash);
            prev = hash;
          }
          const row = '(?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)';
          await tx.execute(
            `INSERT INTO audit_events (id, chain_key, org_id, action, actor_type, actor_id, resource_type, resource_id, details, ip_address, request_id, created_at, prev_hash, integrity_hash)
             VALUES ${items.map(() => row).join(', ')}`, values);
          await tx.execute('UPDATE audit_chain_heads SET last_hash = ?, last_seq = last_seq + ? WHERE chain_key = ?', [prev, items.length, chain]);
        }
      });
      for (const p of batch) p.resolve();
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }
}
