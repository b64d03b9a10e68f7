// The credit meter's store on Postgres (credit-repository.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CreditStore } from './credit-meter.ts';
import { leaseCredits, settleCredits } from './credit-repository.ts';

export function postgresCreditStore(db: () => EntityManager): CreditStore {
  return {
    lease: (orgId, want) => leaseCredits(db(), orgId, want),
    settle: (rows) => settleCredits(db(), rows),
  };
}
