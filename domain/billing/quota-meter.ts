// The monthly request quota as one api process applies it (issue 34 §1), off the hot path's
// critical section: each organization's requests are admitted from a budget this process leased
// from Postgres (request-usage-repository.ts) and counted in memory; a background flush reports
// what was served, in one statement for every organization, about once a second. The next lease
// is fetched while half the current one is left, so a request waits on the database only when its
// organization's budget here is spent.
//
// The bound: a lease is granted only while the month's leased total is under the quota, so all
// processes together never admit more than the quota (no overshoot). The other way round, budget
// one process holds cannot serve another's requests: near the end of a quota, a request may be
// refused while other processes still hold at most one lease each (leases are at most 1 % of the
// quota, and an idle process gives its remainder back after IDLE_RETURN_MS). A process that dies
// loses its unreported count (at most one flush interval of requests, not charged) and strands
// its lease for the month (at most one lease of budget).
import type { UsageSettlement } from './request-usage-repository.ts';
import { monthOf } from './request-quotas.ts';

export type QuotaStore = {
  /** The organization's monthly quota (null: unlimited) and what its month has recorded as served. */
  planOf(orgId: string, month: string): Promise<{ quota: number | null; used: number }>;
  lease(orgId: string, month: string, want: number, quota: number): Promise<number>;
  settle(rows: readonly UsageSettlement[]): Promise<void>;
};

export type QuotaMeterOptions = {
  store: QuotaStore;
  now?: () => number;
  /** How often counts are reported (and idle budget given back). */
  flushMs?: number;
  /** How long an organization's quota (its tier) and recorded count are kept before they are read again. */
  quotaTtlMs?: number;
  /** A report that failed (kept, and sent with the next). */
  onFlushError?: (e: unknown) => void;
};

/** What admit() decided, with the view the quota headers show. */
export type Admission = { admitted: boolean; used: number; quota: number | null };

/** Budget left unused this long goes back to the month. */
export const IDLE_RETURN_MS = 10_000;
/** After a lease found the quota all leased, requests are refused without asking again for this long. */
export const EXHAUSTED_RECHECK_MS = 1_000;
const FIRST_LEASE = 10;
/** A lease is at most this share of the quota (what one process can strand or hold back). */
const LEASE_SHARE = 0.01;
const LEASE_MAX = 10_000;

type OrgMeter = {
  month: string;
  quota: number | null | undefined;
  quotaAt: number;
  /** Leased here and not used yet. */
  budget: number;
  /** Served and not reported yet. */
  unreported: number;
  /** Served this month as this process knows it (recorded when last read, plus its own since). */
  seen: number;
  lastUse: number;
  nextLease: number;
  leasing: Promise<void> | null;
  /** Until when the quota counts as all leased (the last lease was granted nothing); 0: not. */
  exhaustedUntil: number;
  planning: Promise<void> | null;
};

export class QuotaMeter {
  private readonly store: QuotaStore;
  private readonly now: () => number;
  private readonly quotaTtlMs: number;
  private readonly onFlushError: (e: unknown) => void;
  private readonly orgs = new Map<string, OrgMeter>();
  /** Last month's meters, reported by the next flush. */
  private readonly retired: { orgId: string; meter: OrgMeter }[] = [];
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(o: QuotaMeterOptions) {
    this.store = o.store;
    this.now = o.now ?? Date.now;
    this.quotaTtlMs = o.quotaTtlMs ?? 30_000;
    this.onFlushError = o.onFlushError ?? (() => {});
    this.timer = setInterval(() => { void this.flush(); }, o.flushMs ?? 1_000);
    this.timer.unref();
  }

  /** Admits one request of `orgId` against its monthly quota, and counts it when admitted. */
  async admit(orgId: string): Promise<Admission> {
    const m = await this.meterOf(orgId);
    if (m.quota === null) return this.take(m, null);
    while (m.budget === 0) {
      if (!m.leasing && this.now() < m.exhaustedUntil) return { admitted: false, used: m.seen, quota: m.quota! };
      await (m.leasing ?? this.refill(orgId, m));
    }
    const admission = this.take(m, m.quota!);
    if (m.budget <= m.nextLease / 2 && !m.leasing && m.exhaustedUntil === 0) void this.refill(orgId, m).catch(() => {});
    return admission;
  }

  /** What this process knows of the organization's month, without counting or asking (null: not metered here yet). */
  peek(orgId: string): Admission | null {
    const m = this.orgs.get(orgId);
    if (!m || m.quota === undefined || m.month !== monthOf(new Date(this.now()))) return null;
    return { admitted: true, used: m.seen, quota: m.quota };
  }

  /** Reports every count and gives back idle budget (also what stop() does, with all budget). */
  flush(all = false): Promise<void> {
    this.flushing = this.flushing.then(() => this.settle(all)).catch((e: unknown) => this.onFlushError(e)); // kept: the next flush reports it
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    // Leases under way land first, so what they grant is given back with the rest.
    await Promise.all([...this.orgs.values()].map((m) => m.leasing?.catch(() => {})));
    await this.flush(true);
  }

  private take(m: OrgMeter, quota: number | null): Admission {
    if (quota !== null) m.budget--;
    m.unreported++;
    m.seen++;
    m.lastUse = this.now();
    return { admitted: true, used: m.seen, quota };
  }

  private async meterOf(orgId: string): Promise<OrgMeter> {
    const month = monthOf(new Date(this.now()));
    let m = this.orgs.get(orgId);
    if (m && m.month !== month) {
      // A new month: last month's count is reported with the next flush under its own month.
      this.retire(orgId, m);
      m = undefined;
    }
    if (!m) {
      m = { month, quota: undefined, quotaAt: 0, budget: 0, unreported: 0, seen: 0, lastUse: this.now(), nextLease: FIRST_LEASE, leasing: null, exhaustedUntil: 0, planning: null };
      this.orgs.set(orgId, m);
    }
    // The first request of an organization waits for its plan; later ones refresh it behind.
    if (m.quota === undefined || this.now() - m.quotaAt > this.quotaTtlMs) {
      m.planning ??= this.readPlan(orgId, m).finally(() => { m.planning = null; });
      if (m.quota === undefined) await m.planning;
      else void m.planning.catch(() => { /* the kept plan serves until a read succeeds */ });
    }
    return m;
  }

  private async readPlan(orgId: string, m: OrgMeter): Promise<void> {
    const plan = await this.store.planOf(orgId, m.month);
    if (plan.quota !== m.quota) m.exhaustedUntil = 0; // a new plan: ask for budget again
    m.quota = plan.quota;
    m.quotaAt = this.now();
    m.seen = Math.max(m.seen, plan.used + m.unreported);
  }

  /** Fetches the next lease; sizes it by how fast the last one went, within LEASE_SHARE of the quota. */
  private refill(orgId: string, m: OrgMeter): Promise<void> {
    const quota = m.quota!;
    const want = Math.max(1, Math.min(m.nextLease, Math.floor(quota * LEASE_SHARE), LEASE_MAX));
    const started = this.now();
    m.leasing = this.store.lease(orgId, m.month, want, quota).then((granted) => {
      m.budget += granted;
      m.exhaustedUntil = granted === 0 ? this.now() + EXHAUSTED_RECHECK_MS : 0;
      // Used up within a second: ask for twice as much next time; else as much again.
      if (granted === want && this.now() - started < 1_000) m.nextLease = Math.min(want * 2, LEASE_MAX);
    }).finally(() => { m.leasing = null; });
    return m.leasing;
  }

  private retire(orgId: string, m: OrgMeter): void {
    this.orgs.delete(orgId);
    this.retired.push({ orgId, meter: m });
  }

  private async settle(all: boolean): Promise<void> {
    const now = this.now();
    const rows: UsageSettlement[] = [];
    const taken: { m: OrgMeter; used: number; returned: number }[] = [];
    const consider = (orgId: string, m: OrgMeter, giveBack: boolean) => {
      const returned = giveBack && !m.leasing ? m.budget : 0;
      if (m.unreported === 0 && returned === 0) return;
      rows.push({ orgId, month: m.month, used: m.unreported, returned });
      taken.push({ m, used: m.unreported, returned });
      m.unreported = 0;
      m.budget -= returned;
    };
    for (const { orgId, meter } of this.retired.splice(0)) consider(orgId, meter, true);
    for (const [orgId, m] of this.orgs) consider(orgId, m, all || now - m.lastUse > IDLE_RETURN_MS);
    if (rows.length === 0) return;
    try {
      await this.store.settle(mergeRows(rows));
    } catch (e) {
      // Not reported: counted again next time (the budget given back is kept here meanwhile).
      for (const t of taken) { t.m.unreported += t.used; t.m.budget += t.returned; }
      throw e;
    }
  }
}

/** One row per organization and month (a statement cannot update one row twice). */
function mergeRows(rows: UsageSettlement[]): UsageSettlement[] {
  const by = new Map<string, UsageSettlement>();
  for (const r of rows) {
    const key = `${r.orgId} ${r.month}`;
    const prior = by.get(key);
    if (prior) { prior.used += r.used; prior.returned += r.returned; } else by.set(key, { ...r });
  }
  return [...by.values()];
}
