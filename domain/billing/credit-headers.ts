// The credit headers of every authenticated answer (reference facts §16: X-Credit-Balance-Cents,
// X-Credit-Expiring-Soon, X-Overage-Method), kept per organization for 30 s as the reference
// caches them. Never awaited by a request: an answer carries what this process knows (nothing the
// first time it sees the organization), and a stale entry is refreshed in the background, once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { balanceOf, overageMethodOf, type OverageMethod } from './credit-repository.ts';

export type CreditFigures = { balanceMicros: number; expiringMicros: number; method: OverageMethod };

/** How long figures are shown before they are read again. */
export const CREDIT_HEADERS_TTL_MS = 30_000;
/** What counts as expiring soon (the reference's expiring_next_30_days). */
export const EXPIRING_SOON_DAYS = 30;

type Entry = { figures: CreditFigures | null; at: number; loading: boolean };

export class CreditHeaderCache {
  private readonly load: (orgId: string) => Promise<CreditFigures>;
  private readonly now: () => number;
  private readonly onError: (e: unknown) => void;
  private readonly entries = new Map<string, Entry>();

  constructor(o: { load: (orgId: string) => Promise<CreditFigures>; now?: () => number; onError?: (e: unknown) => void }) {
    this.load = o.load;
    this.now = o.now ?? Date.now;
    this.onError = o.onError ?? (() => {});
  }

  /** What is known of the organization now (null: nothing yet); starts a refresh when it is stale. */
  peek(orgId: string): CreditFigures | null {
    let e = this.entries.get(orgId);
    if (!e) this.entries.set(orgId, e = { figures: null, at: 0, loading: false });
    if (!e.loading && (e.figures === null || this.now() - e.at > CREDIT_HEADERS_TTL_MS)) this.refresh(orgId, e);
    return e.figures;
  }

  /** Forgets what is known (a change of method here): answers carry none until it is read again. */
  invalidate(orgId: string): void {
    this.entries.delete(orgId);
  }

  private refresh(orgId: string, e: Entry): void {
    e.loading = true;
    this.load(orgId).then((figures) => { e.figures = figures; e.at = this.now(); }, this.onError).finally(() => { e.loading = false; });
  }
}

/** The figures as Postgres has them: the balance, what of it expires within 30 days, the method. */
export function postgresCreditFigures(db: () => EntityManager): (orgId: string) => Promise<CreditFigures> {
  return async (orgId) => {
    const [b, method] = await Promise.all([balanceOf(db(), orgId, EXPIRING_SOON_DAYS), overageMethodOf(db(), orgId)]);
    return { balanceMicros: b.balanceMicros, expiringMicros: b.expiringMicros, method };
  };
}
