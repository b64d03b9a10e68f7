// Token revocation kept in memory so verifying a token costs no database round trip.
// Rows in revoked_tokens / principal_revocations are the truth; this is their mirror.
import type { EntityManager } from '@mikro-orm/postgresql';
import { notifySql, type InvalidationBus } from '../cache/invalidation-bus.ts';

export class RevocationList {
  private readonly jtis = new Map<string, number>(); // jti -> expiry (ms)
  private readonly notBefore = new Map<string, number>(); // subject -> ms

  private readonly em: () => EntityManager;

  constructor(em: () => EntityManager, bus: InvalidationBus) {
    this.em = em;
    bus.onMessage((m) => {
      if (m.kind === 'token_revoked') this.jtis.set(m.jti, Date.parse(m.expiresAt));
      if (m.kind === 'principal_revoked') this.raise(m.subject, Date.parse(m.notBefore));
    });
    bus.onReconnect(() => this.reload());
    setInterval(() => this.prune(), 60_000).unref();
  }

  async reload(): Promise<void> {
    const em = this.em();
    const tokens = await em.execute<{ jti: string; expires_at: string }[]>('SELECT jti, expires_at FROM revoked_tokens WHERE expires_at > now()');
    const principals = await em.execute<{ subject: string; not_before: string }[]>('SELECT subject, not_before FROM principal_revocations');
    for (const t of tokens) this.jtis.set(t.jti, new Date(t.expires_at).getTime());
    for (const p of principals) this.raise(p.subject, new Date(p.not_before).getTime());
  }

  isRevoked(jti: string, subject: string, issuedAtMs: number): boolean {
    if (this.jtis.has(jti)) return true;
    const nb = this.notBefore.get(subject);
    return nb !== undefined && issuedAtMs <= nb;
  }

  async revokeToken(em: EntityManager, jti: string, expiresAt: Date): Promise<void> {
    await em.execute('INSERT INTO revoked_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING', [jti, expiresAt]);
    await em.execute(notifySql, [JSON.stringify({ kind: 'token_revoked', jti, expiresAt: expiresAt.toISOString() })]);
    this.jtis.set(jti, expiresAt.getTime());
  }

  /** Every token of `subject` issued up to now stops working. */
  async revokePrincipal(em: EntityManager, subject: string): Promise<void> {
    const rows = await em.execute<{ not_before: string }[]>(
      `INSERT INTO principal_revocations (subject, not_before) VALUES (?, ?)
       ON CONFLICT (subject) DO UPDATE SET not_before = greatest(principal_revocations.not_before, excluded.not_before)
       RETURNING not_before`, [subject, new Date()]); // the app clock, the same clock that stamps iat_ms
    const notBefore = new Date(rows[0]!.not_before);
    await em.execute(notifySql, [JSON.stringify({ kind: 'principal_revoked', subject, notBefore: notBefore.toISOString() })]);
    this.raise(subject, notBefore.getTime());
  }

  private raise(subject: string, ms: number): void {
    if ((this.notBefore.get(subject) ?? 0) < ms) this.notBefore.set(subject, ms);
  }

  private prune(): void {
    const now = Date.now();
    for (const [jti, exp] of this.jtis) if (exp < now) this.jtis.delete(jti);
  }
}
