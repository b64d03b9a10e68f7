// Token revocation kept in memory so verifying a token costs no database round trip.
// Rows in revoked_tokens / principal_revocations are the truth; this is their mirror.
//
// A principal-wide revocation is a cut-off: every token of the subject issued up to `not_before`
// stops working. It may spare exactly one token (`exempt_jti`): the one that asked for the cut-off
// (a password change keeps the caller's own session, issue 8 §5). Only the latest cut-off's
// exemption counts, so a later cut-off without one (reset, deletion) ends that token too.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { InvalidationBus } from '../cache/invalidation-bus.ts';
import { announceRevocation, insertRevokedToken, liveRevokedTokens, principalCutOffs, upsertCutOff } from './revocation-repository.ts';

type CutOff = { notBefore: number; exemptJti: string | null };

export class RevocationList {
  private readonly jtis = new Map<string, number>(); // jti -> expiry (ms)
  private readonly cutOffs = new Map<string, CutOff>(); // subject -> latest cut-off

  private readonly em: () => EntityManager;

  constructor(em: () => EntityManager, bus: InvalidationBus) {
    this.em = em;
    bus.onMessage((m) => {
      if (m.kind === 'token_revoked') this.jtis.set(m.jti, Date.parse(m.expiresAt));
      if (m.kind === 'principal_revoked') this.raise(m.subject, Date.parse(m.notBefore), m.exemptJti ?? null);
    });
    bus.onReconnect(() => this.reload());
    setInterval(() => this.prune(), 60_000).unref();
  }

  async reload(): Promise<void> {
    const em = this.em();
    const tokens = await liveRevokedTokens(em);
    const principals = await principalCutOffs(em);
    for (const t of tokens) this.jtis.set(t.jti, t.expires_at.getTime());
    for (const p of principals) this.raise(p.subject, p.not_before.getTime(), p.exempt_jti);
  }

  isRevoked(jti: string, subject: string, issuedAtMs: number): boolean {
    if (this.jtis.has(jti)) return true;
    const c = this.cutOffs.get(subject);
    return c !== undefined && issuedAtMs <= c.notBefore && c.exemptJti !== jti;
  }

  async revokeToken(em: EntityManager, jti: string, expiresAt: Date): Promise<void> {
    await insertRevokedToken(em, jti, expiresAt);
    await announceRevocation(em, { kind: 'token_revoked', jti, expiresAt: expiresAt.toISOString() });
    this.jtis.set(jti, expiresAt.getTime());
  }

  /**
   * Every token of `subject` issued up to now stops working, except `opts.except` (a jti) when
   * given. Call inside the transaction of the change that requires it.
   */
  async revokePrincipal(em: EntityManager, subject: string, opts: { except?: string } = {}): Promise<void> {
    // The later cut-off wins (upsertCutOff); the app clock, the same clock that stamps iat_ms.
    const { not_before: notBefore, exempt_jti: exemptJti } = await upsertCutOff(em, subject, new Date(), opts.except ?? null);
    await announceRevocation(em, { kind: 'principal_revoked', subject, notBefore: notBefore.toISOString(), exemptJti });
    this.raise(subject, notBefore.getTime(), exemptJti);
  }

  private raise(subject: string, ms: number, exemptJti: string | null): void {
    const current = this.cutOffs.get(subject);
    if (!current || current.notBefore < ms) this.cutOffs.set(subject, { notBefore: ms, exemptJti });
  }

  private prune(): void {
    const now = Date.now();
    for (const [jti, exp] of this.jtis) if (exp < now) this.jtis.delete(jti);
  }
}
