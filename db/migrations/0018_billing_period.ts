// The end of an organization's paid period (spec §4.14; reference adminSetBillingTier): a platform
// operator grants a paid tier for a number of days. NULL means no end (the free tier, and tiers
// set before this column existed). A paid tier whose period has ended counts as free wherever
// the tier is read (domain/limits/tier-limits.ts, tierInForce); the stored tier is kept, so the
// record shows what was granted.
export const name = '0018_billing_period';

export const up = `
ALTER TABLE organizations ADD COLUMN billing_period_end timestamptz;
`;
