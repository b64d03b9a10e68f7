// Cross-replica cache invalidation through Postgres LISTEN/NOTIFY. Hot-path caches (revoked
// tokens, API keys, IP rules) stay in memory; a change on any replica reaches every other within
// milliseconds, and a reconnect triggers a full reload so no notice is ever silently missed.
import { openListenConnection, type ListenConnection } from '../../db/listen-connection.ts';
import { CHANNEL } from './invalidation-repository.ts';

// Announcing a change is invalidation-repository.ts's (announceInvalidation).
export { CHANNEL, notifySql, announceInvalidation } from './invalidation-repository.ts';

export type Invalidation =
  | { kind: 'token_revoked'; jti: string; expiresAt: string }
  /** `exemptJti`: the one token the cut-off spares (the caller of change-password); absent from older replicas. */
  | { kind: 'principal_revoked'; subject: string; notBefore: string; exemptJti?: string | null }
  | { kind: 'api_keys_changed'; userId: string }
  | { kind: 'ip_rules_changed'; orgId: string }
  | { kind: 'platform_keys_changed'; appId: string };

type Handler = (msg: Invalidation) => void;

export class InvalidationBus {
  private client: ListenConnection | undefined;
  private readonly handlers: Handler[] = [];
  private readonly reloaders: (() => Promise<void>)[] = [];
  private closed = false;
  private readonly databaseUrl: string;
  private readonly log: (m: string) => void;

  constructor(databaseUrl: string, log: (m: string) => void) {
    this.databaseUrl = databaseUrl;
    this.log = log;
  }

  onMessage(h: Handler): void { this.handlers.push(h); }
  /** Called after every (re)connect: caches rebuild from the database. */
  onReconnect(r: () => Promise<void>): void { this.reloaders.push(r); }

  async start(): Promise<void> {
    // A loss before start() finishes makes start() itself fail; its caller retries.
    const client = await openListenConnection(this.databaseUrl, {
      onNotification: (channel, payload) => {
        if (channel !== CHANNEL || !payload) return;
        let msg: Invalidation;
        try { msg = JSON.parse(payload) as Invalidation; } catch { return; }
        for (const h of this.handlers) h(msg);
      },
      onLost: (lost, e) => {
        if (this.closed || this.client !== lost) return;
        this.log(`invalidation listener lost its connection: ${e?.message ?? 'closed'}; reconnecting`);
        this.reconnectSoon();
      },
    });
    await client.listen(CHANNEL);
    this.client = client;
    for (const r of this.reloaders) await r();
  }

  private reconnectSoon(): void {
    if (this.closed) return;
    const old = this.client;
    this.client = undefined;
    old?.close().catch(() => {});
    setTimeout(() => { this.start().catch(() => this.reconnectSoon()); }, 1000).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.close().catch(() => {});
  }
}
