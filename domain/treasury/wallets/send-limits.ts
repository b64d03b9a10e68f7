// Limits of a treasury send that the api checks before calling the domain (no runtime imports:
// route modules load this in tests that must not load the ORM).

/** The longest Idempotency-Key accepted on POST /v1/treasury/wallets/{chain}/send. */
export const MAX_IDEMPOTENCY_KEY = 255;
