// Rate limit windows shared by the api processes (migration 0032; domain/ratelimit): written by
// rate-limiter-flexible's RateLimiterPostgres, whose column names these are.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const RateLimitWindow = defineEntity({
  name: 'RateLimitWindow',
  tableName: 'rate_limits',
  properties: {
    key: p.text().primary(),
    points: p.integer().default(0),
    /** The window's end, in ms since the epoch. */
    expire: p.bigint('number').nullable(),
  },
  indexes: [{ name: 'rate_limits_expire_idx', properties: ['expire'] }],
});
export type RateLimitWindowRow = InferEntity<typeof RateLimitWindow>;
