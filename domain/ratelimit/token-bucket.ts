// In-memory token buckets, one per key (client IP). No database round trip on any request.
// Each replica enforces the limit on what it sees; behind N replicas the effective limit is N×.
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly rate: number;
  private readonly burst: number;
  private readonly maxKeys: number;

  constructor(ratePerSecond: number, burst: number, maxKeys = 100_000) {
    this.rate = ratePerSecond;
    this.burst = burst;
    this.maxKeys = maxKeys;
    setInterval(() => this.prune(), 10_000).unref();
  }

  /** Takes one token; returns 0 when allowed, else the seconds until one is available. */
  take(key: string, now = Date.now()): number {
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= this.maxKeys) this.prune(now);
      b = { tokens: this.burst, at: now };
      this.buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.rate);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.rate));
  }

  /** Forgets buckets that have refilled completely: they hold no information. */
  private prune(now = Date.now()): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.rate >= this.burst) this.buckets.delete(k);
    }
  }
}
