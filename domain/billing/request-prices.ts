// What a request costs (reference facts §16): the routes that count against the monthly request
// quota, by the action their route declares (RouteDef.billable), with their price in USD. Auth,
// health and listings are free; signing has its own allowance (not counted here).
export const REQUEST_PRICES = {
  read_secret: '0.001',
  write_secret: '0.005',
  create_share: '0.002',
  access_share: '0.001',
  query_audit: '0.0005',
} as const;

export type BillableAction = keyof typeof REQUEST_PRICES;
