// What a limit is and what its users call. A limit of `ratePerSecond` with `burst` is kept as a
// fixed window of `burst` requests per `burst / ratePerSecond` seconds (rounded, at least 1 s):
// the shape rate-limiter-flexible's stores keep (a counter with an expiry), the same in memory,
// Postgres and Redis. The window starts at a key's first request.

/** A limiter: `take(key)` counts one request of `key`; 0 means allowed, else the seconds to wait. */
export type Limiter = { take(key: string): number | Promise<number> };

/**
 * When the shared store cannot be reached: `open` falls back to a limit per process (the same
 * window, counted in this process only), `closed` refuses with 503 and Retry-After.
 */
export type WhenStoreDown = 'open' | 'closed';

export type LimitSpec = {
  /** Part of the store key, so limits never share counters (e.g. `global`, `share-open-ip`). */
  name: string;
  ratePerSecond: number;
  burst: number;
  whenStoreDown: WhenStoreDown;
  /**
   * Requests a process takes from the shared store at once and then counts locally (default 1:
   * every request asks the store). Larger leases spare the hot path the round trip.
   */
  leaseSize?: number;
};

export type Window = { points: number; durationSeconds: number };

export function windowOf(spec: Pick<LimitSpec, 'ratePerSecond' | 'burst'>): Window {
  return { points: spec.burst, durationSeconds: Math.max(1, Math.round(spec.burst / spec.ratePerSecond)) };
}

/** The global limit's lease: a tenth of the window, at least 1, at most 100 requests. */
export function batchedLeaseSize(points: number): number {
  return Math.min(100, Math.max(1, Math.floor(points / 10)));
}

/** Retry-After for a wait of `ms` milliseconds: whole seconds, at least 1. */
export const waitSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
