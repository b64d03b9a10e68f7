// Changes whose checks read several rows of one organization (the last owner, the rule count
// and the caller's lockout) take the organization's row lock first, so two concurrent changes
// cannot both pass a check that only one of them may.
import type { EntityManager } from '@mikro-orm/postgresql';

export async function lockOrganization(tx: EntityManager, orgId: string): Promise<void> {
  await tx.execute('SELECT id FROM organizations WHERE id = ? FOR UPDATE', [orgId]);
}
