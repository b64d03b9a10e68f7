// Rate limits shared by every api process (issue 30 §1): rate-limiter-flexible's RateLimiterPostgres
// table, a row per limit and key with the points taken in its window and the window's end (ms since
// the epoch). Created here rather than by the library so the schema stays the migrations'.
export const name = '0032_rate_limits';
export const up = `
CREATE TABLE rate_limits (
  key text PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
CREATE INDEX rate_limits_expire_idx ON rate_limits (expire);
`;
