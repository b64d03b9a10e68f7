// Requests over the monthly quota paid with prepaid credits (issue 34 §2), as one api process
// pays them: like the quota meter, from a budget leased from Postgres (credit-repository.ts) and
// spent in memory; a background flush reports what was spent, and gives back what sat idle.
//
// The bound: a lease is granted only from the balance beyond every lease already out, so all
// processes together never spend more than the organization holds (the balance never goes below
// zero). Budget one process holds cannot pay another's requests: near the end of a balance, a
// request may be refused while other processes still hold at most one lease each (at most
// LEASE_MAX_MICROS, and at most a tenth of the balance last seen; idle budget goes back after
// IDLE_RETURN_MS). A process that dies loses its
// unreported spending (not charged); its lease stops counting once the account has gone
// STRANDED_LEASE_SECONDS without a settlement (credit-repository.ts).
import type { CreditSettlement } from './credit-repository.ts';
import { monthOf } from './request-quotas.ts';
import { IDLE_RETURN_MS, EXHAUSTED_RECHECK_MS } from './quota-meter.ts';

export type CreditStore = {
  lease(orgId: string, wantMicros: number): Promise<{ granted: number; unleased: number }>;
  settle(rows: readonly CreditSettlement[]): Promise<void>;
};

/** A lease is at most $1: what one process can hold back from the others. */
export const LEASE_MAX_MICROS = 1_000_000;
/** The first lease pays this many requests of the price asked. */
const FIRST_LEASE_REQUESTS = 10;
/** A later lease is at most this share of the balance last seen, so one process does not take a small balance from the others. */
const LEASE_SHARE = 0.1;

type OrgCredit = {
  /** Leased here and not spent yet (micro-dollars). */
  budget: number;
  /** The balance as last seen: what this process holds plus what nobody had leased. */
  balanceHint: number;
  /** Whether a lease has answered yet (until then the balance is unknown). */
  seen: boolean;
  nextLease: number;
  leasing: Promise<void> | null;
  exhaustedUntil: number;
  lastUse: number;
};

/** Paid and not reported yet, per organization and month. */
type Unreported = { orgId: string; month: string; paid: number; spentMicros: number };

export class CreditMeter {
  private readonly store: CreditStore;
  private readonly now: () => number;
  private readonly onFlushError: (e: unknown) => void;
  private readonly orgs = new Map<string, OrgCredit>();
  private readonly unreported = new Map<string, Unreported>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(o: { store: CreditStore; now?: () => number; flushMs?: number; onFlushError?: (e: unknown) => void }) {
    this.store = o.store;
    this.now = o.now ?? Date.now;
    this.onFlushError = o.onFlushError ?? (() => {});
    this.timer = setInterval(() => { void this.flush(); }, o.flushMs ?? 1_000);
    this.timer.unref();
  }

  /** Pays one request of `priceMicros` from the organization's credits; null when they cannot (none, or x402 chosen). */
  async pay(orgId: string, priceMicros: number): Promise<{ balanceMicros: number } | null> {
    let c = this.orgs.get(orgId);
    if (!c) {
      c = { budget: 0, balanceHint: 0, seen: false, nextLease: priceMicros * FIRST_LEASE_REQUESTS, leasing: null, exhaustedUntil: 0, lastUse: this.now() };
      this.orgs.set(orgId, c);
    }
    while (c.budget < priceMicros) {
      if (!c.leasing && this.now() < c.exhaustedUntil) return null;
      await (c.leasing ?? this.refill(orgId, c, priceMicros));
    }
    c.budget -= priceMicros;
    c.balanceHint -= priceMicros;
    c.lastUse = this.now();
    const month = monthOf(new Date(this.now()));
    const key = `${orgId} ${month}`;
    const u = this.unreported.get(key) ?? { orgId, month, paid: 0, spentMicros: 0 };
    u.paid++;
    u.spentMicros += priceMicros;
    this.unreported.set(key, u);
    if (c.budget < c.nextLease / 2 && !c.leasing && c.exhaustedUntil === 0) void this.refill(orgId, c, priceMicros).catch(() => {});
    return { balanceMicros: Math.max(0, c.balanceHint) };
  }

  /** Reports what was spent and gives back idle budget (all of it with `all`). */
  flush(all = false): Promise<void> {
    this.flushing = this.flushing.then(() => this.settle(all)).catch((e: unknown) => this.onFlushError(e));
    return this.flushing;
  }

  /**
   * Gives back what this process holds of `orgId`'s credits now (it stopped paying overage with
   * them): its next payment leases again, which the new method refuses.
   */
  async release(orgId: string): Promise<void> {
    const c = this.orgs.get(orgId);
    if (!c) return;
    await c.leasing?.catch(() => {});
    c.lastUse = Number.NEGATIVE_INFINITY; // idle for as long as can be: the next settle returns its budget
    await this.flush();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.orgs.values()].map((c) => c.leasing?.catch(() => {})));
    await this.flush(true);
  }

  private refill(orgId: string, c: OrgCredit, priceMicros: number): Promise<void> {
    const cap = c.seen ? Math.min(c.nextLease, LEASE_MAX_MICROS, c.balanceHint * LEASE_SHARE) : c.nextLease;
    // Whole requests of this price, so no process is left holding a remainder nobody can spend.
    const want = Math.max(1, Math.floor(cap / priceMicros)) * priceMicros;
    const started = this.now();
    c.leasing = this.store.lease(orgId, want).then(({ granted, unleased }) => {
      c.budget += granted;
      c.balanceHint = c.budget + unleased;
      c.seen = true;
      c.exhaustedUntil = granted === 0 ? this.now() + EXHAUSTED_RECHECK_MS : 0;
      if (granted === want && this.now() - started < 1_000) c.nextLease = Math.min(want * 2, LEASE_MAX_MICROS);
    }).finally(() => { c.leasing = null; });
    return c.leasing;
  }

  private async settle(all: boolean): Promise<void> {
    const now = this.now();
    const rows: CreditSettlement[] = [...this.unreported.values()].map((u) => ({ ...u, returnedMicros: 0 }));
    this.unreported.clear();
    const givenBack: { c: OrgCredit; micros: number }[] = [];
    for (const [orgId, c] of this.orgs) {
      if (c.leasing || c.budget === 0 || !(all || now - c.lastUse > IDLE_RETURN_MS)) continue;
      rows.push({ orgId, month: monthOf(new Date(now)), paid: 0, spentMicros: 0, returnedMicros: c.budget });
      givenBack.push({ c, micros: c.budget });
      c.budget = 0;
    }
    if (rows.length === 0) return;
    try {
      await this.store.settle(mergeRows(rows));
    } catch (e) {
      // Not reported: kept for the next flush (and the budget stays here meanwhile).
      for (const r of rows) {
        if (r.paid === 0 && r.spentMicros === 0) continue;
        const key = `${r.orgId} ${r.month}`;
        const u = this.unreported.get(key) ?? { orgId: r.orgId, month: r.month, paid: 0, spentMicros: 0 };
        u.paid += r.paid;
        u.spentMicros += r.spentMicros;
        this.unreported.set(key, u);
      }
      for (const g of givenBack) g.c.budget += g.micros;
      throw e;
    }
  }
}

/** One row per organization and month (a settlement locks each account once). */
function mergeRows(rows: CreditSettlement[]): CreditSettlement[] {
  const by = new Map<string, CreditSettlement>();
  for (const r of rows) {
    const key = `${r.orgId} ${r.month}`;
    const prior = by.get(key);
    if (prior) { prior.paid += r.paid; prior.spentMicros += r.spentMicros; prior.returnedMicros += r.returnedMicros; } else by.set(key, { ...r });
  }
  return [...by.values()];
}
