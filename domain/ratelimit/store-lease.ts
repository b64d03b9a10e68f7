// Leases from a rate-limiter-flexible store, and what happens when the store cannot answer.
// A store that errs or takes longer than STORE_TIMEOUT_MS is "down" for DOWN_FOR_MS: leases in
// that time do not try it (no request waits on a dead store twice in a row). Meanwhile a limit
// that fails open leases from a RateLimiterMemory of the same window, counted in this process
// only; one that fails closed answers 503 with Retry-After. The guard is shared by every limit
// on the store, and logs when the store goes down and when it is back.
import { RateLimiterRes, type RateLimiterAbstract, type RateLimiterMemory } from 'rate-limiter-flexible';
import type { Logger } from '../log.ts';
import { Problem } from '../errors.ts';
import type { Grant, LeaseSource } from './leased-limiter.ts';

export const STORE_TIMEOUT_MS = 500;
export const DOWN_FOR_MS = 1_000;
const RETRY_AFTER_SECONDS = 5;

/** Thrown by a limit that fails closed while its store is down. */
export const limitsUnavailable = () => new Problem(503, 'Rate limits cannot be checked right now; retry shortly', {
  headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
});

export class StoreGuard {
  private downUntil = 0;
  private down = false;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly timeoutMs: number;

  constructor(log: Logger, o: { now?: () => number; timeoutMs?: number } = {}) {
    this.log = log;
    this.now = o.now ?? Date.now;
    this.timeoutMs = o.timeoutMs ?? STORE_TIMEOUT_MS;
  }

  /** The store's answer (a RateLimiterRes, resolved or rejected), or StoreDown. */
  async call(op: () => Promise<RateLimiterRes>): Promise<RateLimiterRes> {
    if (this.now() < this.downUntil) throw new StoreDown();
    let timer: NodeJS.Timeout | undefined;
    try {
      const res = await Promise.race([
        op(),
        new Promise<never>((_r, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs); }),
      ]);
      this.up();
      return res;
    } catch (e) {
      if (e instanceof RateLimiterRes) { this.up(); throw e; }
      this.downUntil = this.now() + DOWN_FOR_MS;
      if (!this.down) {
        this.down = true;
        this.log.warn('rate limit store unreachable: limits that fail open count per process, those that fail closed answer 503', { error: (e as Error).message });
      }
      throw new StoreDown();
    } finally {
      clearTimeout(timer);
    }
  }

  private up(): void {
    if (!this.down) return;
    this.down = false;
    this.log.warn('rate limit store reachable again: limits hold across processes');
  }
}

export class StoreDown extends Error {
  constructor() { super('rate limit store unavailable'); }
}

/**
 * The lease source of one limit: `store` (its window), and `fallback` (the same window in
 * memory) for a limit that fails open, or null for one that fails closed.
 */
export function storeLease(store: RateLimiterAbstract, fallback: RateLimiterMemory | null, guard: StoreGuard): LeaseSource {
  return async (key, size) => {
    try {
      return grantOf(await guard.call(() => store.consume(key, size)), size, store.points);
    } catch (e) {
      if (e instanceof RateLimiterRes) return grantOf(e, size, store.points);
      if (!(e instanceof StoreDown)) throw e;
      if (!fallback) throw limitsUnavailable();
      try {
        return grantOf(await fallback.consume(key, size), size, fallback.points);
      } catch (f) {
        if (f instanceof RateLimiterRes) return grantOf(f, size, fallback.points);
        throw f;
      }
    }
  };
}

/**
 * What a consume of `size` points granted. The store adds the whole lease to its counter even
 * when the window overflows (then rejecting); what was below `points` before it is granted.
 */
export function grantOf(res: RateLimiterRes, size: number, points: number): Grant {
  const before = res.consumedPoints - size;
  return {
    granted: Math.max(0, Math.min(size, points - before)),
    msLeft: res.msBeforeNext,
    fresh: res.isFirstInDuration,
  };
}
