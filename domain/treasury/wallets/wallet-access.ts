// Who may use treasury wallets (spec §5 rule 8: human-only; spec §1: Pro tier or higher). Agents
// are refused before anything else (the routes also declare auth 'user'); every human of an
// organization on a plan that includes them holds their own wallets. A wallet belongs to one
// user: nobody else, not even an owner of the organization, reads, exports or moves it.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import { callerOf } from '../../auth/principal.ts';
import { forbidden } from '../../errors.ts';
import { assertTierIncludes } from '../../limits/tier-limits.ts';
import type { Owner } from './wallet-repository.ts';

export async function walletOwner(ctx: ActionContext, em: EntityManager): Promise<Owner> {
  const p = callerOf(ctx);
  if (p.type !== 'user') throw forbidden('Treasury wallets are human-only: agents cannot use them');
  await assertTierIncludes(em, p.orgId, 'treasury_wallets');
  return { orgId: p.orgId, userId: p.id };
}
