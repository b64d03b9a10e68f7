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

const FLUSH_DELAY_MS = 10;
const MAX_BATCH = 200;

export class AuditWriter {
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly em: () => EntityManager;
  private readonly key: Buffer;
  private readonly log: Logger;

  constructor(em: () => EntityManager, chainKey: Buffer, log: Logger) {
    this.em = em;
    this.key = chainKey;
    this.log = log;
  }

  /** Queues an event; the promise settles when it is committed (or the batch failed). */
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
    return new Promise((resolve, reject) => {
      this.queue.push({ fields, resolve, reject });
      if (this.queue.length >= MAX_BATCH) this.schedule(0);
      else this.schedule(FLUSH_DELAY_MS);
    });
  }

  /** Fire-and-forget variant: a failure is logged, never thrown at the caller. */
  recordQuietly(e: AuditEventInput): void {
    this.record(e).catch((err) => this.log.error('audit record failed', { action: e.action, error: String(err) }));
  }

  private schedule(delay: number): void {
    if (this.timer && delay > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flushing.then(() => this.flush());
    }, delay);
  }

  /** Waits until everything queued so far is written. */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.timer) {
      if (this.timer) { clearTimeout(this.timer); this.timer = undefined; this.flushing = this.flushing.then(() => this.flush()); }
      await this.flushing;
    }
    await this.flushing;
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    if (this.queue.length > 0) this.schedule(0);
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
