// What a request costs (reference facts §16): the routes that count against the monthly request
// quota, by the action their route declares (RouteDef.billable), with their price in USD. Auth,
// health and listings are free; signing has its own allowance (not counted here). A simulation
// has no credit price in the reference, only an x402 one: its credit price keeps the ratio the
// others have (the x402 price is 1.5 times it).
export const REQUEST_PRICES = {
  read_secret: '0.001',
  write_secret: '0.005',
  create_share: '0.002',
  access_share: '0.001',
  query_audit: '0.0005',
  simulate_transaction: '0.05',
} as const;

export type BillableAction = keyof typeof REQUEST_PRICES;

/**
 * What an x402 payment for one request costs, in USD (the reference's x-payment-info prices: a
 * payment per request carries its settlement cost, so it is above the prepaid-credit price).
 */
export const X402_PRICES: Record<BillableAction, string> = {
  read_secret: '0.0015',
  write_secret: '0.0075',
  create_share: '0.003',
  access_share: '0.0015',
  query_audit: '0.0008',
  simulate_transaction: '0.075',
};
