// Every rate limit of the api, kept in one store that all api processes share (RATE_LIMIT_STORE):
// Redis, Postgres (the rate_limits table), or this process's memory (one process only). Each limit
// is a LeasedLimiter over a rate-limiter-flexible limiter of that store; docs/operations.md says
// what holds across replicas and what happens while the store is down.
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { HotReads } from '../../db/hot-reads.ts';
import type { Logger } from '../log.ts';
import { windowOf, type LimitSpec } from './limiter.ts';
import { LeasedLimiter } from './leased-limiter.ts';
import { StoreGuard, STORE_TIMEOUT_MS, storeLease } from './store-lease.ts';
import { postgresLimiter } from './rate-limit-repository.ts';

export type RateLimitStoreKind = 'memory' | 'postgres' | 'redis';
export type RateLimitStoreConfig = { kind: RateLimitStoreKind; redisUrl?: string };

/** How long a start waits for Redis before serving anyway (limits that fail open count per process meanwhile). */
const REDIS_READY_MS = 3_000;

export class RateLimits {
  private readonly limiters: LeasedLimiter[] = [];
  private readonly guard: StoreGuard;
  private readonly store: (o: { keyPrefix: string; points: number; duration: number }) => RateLimiterAbstract;
  private readonly closeStore: () => Promise<void>;
  readonly kind: RateLimitStoreKind;

  private constructor(kind: RateLimitStoreKind, log: Logger, store: RateLimits['store'], closeStore: () => Promise<void>) {
    this.kind = kind;
    this.guard = new StoreGuard(log);
    this.store = store;
    this.closeStore = closeStore;
  }

  /** Opens the store: `hot` is the pool Postgres limits run on. */
  static async open(config: RateLimitStoreConfig, d: { hot: HotReads; log: Logger }): Promise<RateLimits> {
    if (config.kind === 'memory') {
      return new RateLimits('memory', d.log, (o) => new RateLimiterMemory(o), async () => {});
    }
    if (config.kind === 'postgres') {
      let sweeper = true; // one limit is enough to sweep the shared table
      return new RateLimits('postgres', d.log, (o) => {
        const l = postgresLimiter(d.hot, { ...o, sweeps: sweeper });
        sweeper = false;
        return l;
      }, async () => {});
    }
    if (!config.redisUrl) throw new Error('RATE_LIMIT_STORE=redis needs REDIS_URL');
    // No offline queue: while Redis is away a lease fails at once (and the guard takes over)
    // instead of waiting in a queue; ioredis reconnects in the background.
    const redis = new Redis(config.redisUrl, {
      enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: STORE_TIMEOUT_MS,
    });
    redis.on('error', () => {}); // reported by the guard when a lease fails, not on every reconnect attempt
    if (!(await readyWithin(redis, REDIS_READY_MS))) {
      d.log.warn('rate limit store (redis) not reachable yet: limits that fail open count per process until it is', { status: redis.status });
    }
    return new RateLimits('redis', d.log, (o) => new RateLimiterRedis({ storeClient: redis, rejectIfRedisNotReady: true, ...o }), async () => {
      redis.disconnect();
    });
  }

  /** A limiter for `spec`, shared by every process on the store. */
  limiter(spec: LimitSpec): LeasedLimiter {
    const { points, durationSeconds } = windowOf(spec);
    const keyPrefix = `rl:${spec.name}:${points}/${durationSeconds}s`;
    const store = this.store({ keyPrefix, points, duration: durationSeconds });
    const fallback = spec.whenStoreDown === 'open' && this.kind !== 'memory'
      ? new RateLimiterMemory({ keyPrefix, points, duration: durationSeconds })
      : null;
    const limiter = new LeasedLimiter({ leaseSize: spec.leaseSize ?? 1, lease: storeLease(store, fallback, this.guard) });
    this.limiters.push(limiter);
    return limiter;
  }

  async close(): Promise<void> {
    for (const l of this.limiters) l.close();
    await this.closeStore();
  }
}

function readyWithin(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => { clearTimeout(timer); redis.off('ready', onReady); resolve(ok); };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    redis.on('ready', onReady);
  });
}
