// A limiter that spends, in this process, budgets leased from a shared store. A process takes
// `leaseSize` requests of a key's window at once (one store round trip) and counts them down
// locally; when half are spent it leases the next ones in the background, so a busy key's
// requests do not wait for the store. Leases belong to their window and lapse with it. A lease
// the store can only partly grant (the window is nearly full) is granted what remains; a window
// the store reports full is refused locally until it ends, without asking again.
//
// Bound: the store never grants more than the window's points, so a key is served at most the
// limit per window, plus what other processes still hold from the previous window in the few
// milliseconds before they see it end: at most (leaseSize - 1) per process. A key may also be
// refused while other processes hold unspent leases of it (the same amount, the other way).
import { waitSeconds, type Limiter } from './limiter.ts';

/** What a lease request got: `granted` requests (0..size) of a window ending in `msLeft`. */
export type Grant = { granted: number; msLeft: number; /** the store opened a new window */ fresh: boolean };

/** Asks the shared store for `size` requests of `key`'s current window. */
export type LeaseSource = (key: string, size: number) => Promise<Grant>;

type Budget = {
  tokens: number;
  /** When the window of these tokens ends (ms since the epoch, this process's clock). */
  until: number;
  /** The store had nothing more in this window. */
  full: boolean;
  pending: Promise<void> | null;
};

export type LeasedLimiterOptions = {
  leaseSize: number;
  lease: LeaseSource;
  now?: () => number;
  /** Keys kept before expired ones are dropped early. */
  maxKeys?: number;
};

export class LeasedLimiter implements Limiter {
  private readonly budgets = new Map<string, Budget>();
  private readonly size: number;
  private readonly lease: LeaseSource;
  private readonly now: () => number;
  private readonly maxKeys: number;
  private readonly timer: NodeJS.Timeout;

  constructor(o: LeasedLimiterOptions) {
    this.size = Math.max(1, Math.floor(o.leaseSize));
    this.lease = o.lease;
    this.now = o.now ?? Date.now;
    this.maxKeys = o.maxKeys ?? 100_000;
    this.timer = setInterval(() => this.prune(), 10_000);
    this.timer.unref();
  }

  /** 0 when allowed, else seconds to wait; without a round trip while this process holds a lease. */
  take(key: string): number | Promise<number> {
    const b = this.budgets.get(key);
    if (b) {
      const answer = this.spend(key, b);
      if (answer !== undefined) return answer;
    }
    return this.takeLeasing(key);
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** The answer from what this process holds, or undefined when it must lease first. */
  private spend(key: string, b: Budget): number | undefined {
    const now = this.now();
    if (now >= b.until) return undefined;
    if (b.tokens > 0) {
      b.tokens -= 1;
      if (this.size > 1 && b.tokens <= this.size / 2 && !b.full && !b.pending) {
        // A failed background lease is not this request's concern: the next lease reports it.
        this.refill(key, b).catch(() => {});
      }
      return 0;
    }
    return b.full ? waitSeconds(b.until - now) : undefined;
  }

  private async takeLeasing(key: string): Promise<number> {
    for (;;) {
      let b = this.budgets.get(key);
      if (!b) {
        if (this.budgets.size >= this.maxKeys) this.prune();
        b = { tokens: 0, until: 0, full: false, pending: null };
        this.budgets.set(key, b);
      }
      const answer = this.spend(key, b);
      if (answer !== undefined) return answer;
      // Requests arriving together wait for one lease; each lease grants something or marks the
      // window full, so this ends.
      await (b.pending ?? this.refill(key, b));
    }
  }

  private refill(key: string, b: Budget): Promise<void> {
    const p = this.lease(key, this.size).then((g) => {
      const now = this.now();
      // Tokens of an ended window are not carried into a new one.
      b.tokens = g.fresh || now >= b.until ? g.granted : b.tokens + g.granted;
      b.until = now + Math.max(1, g.msLeft);
      b.full = g.granted < this.size;
    }).finally(() => { b.pending = null; });
    b.pending = p;
    return p;
  }

  /** Drops keys whose window has ended: they hold nothing. */
  private prune(): void {
    const now = this.now();
    for (const [k, b] of this.budgets) {
      if (now >= b.until && !b.pending) this.budgets.delete(k);
    }
  }
}
