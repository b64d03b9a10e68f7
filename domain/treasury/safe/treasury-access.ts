// Who may do what with a Safe treasury. Humans manage it: its creator, or an owner or admin of
// the organization, creates, updates, deletes it, adds and removes signers and decides agents'
// access requests. Agents never manage (403); another organization's treasury is not found (404).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../auth/principal.ts';
import { roleOf } from '../../access/roles.ts';
import { forbidden, notFound } from '../../errors.ts';
import { findTreasury, signersOf, type SignerRow, type TreasuryRow } from './treasury-repository.ts';

export type TreasuryWithSigners = TreasuryRow & { signers: SignerRow[] };

export async function loadTreasury(em: EntityManager, p: Principal, id: string, forUpdate = false): Promise<TreasuryRow> {
  const t = await findTreasury(em, p.orgId, id, forUpdate);
  if (!t) throw notFound('Treasury');
  return t;
}

export async function withSigners(em: EntityManager, rows: TreasuryRow[]): Promise<TreasuryWithSigners[]> {
  const signers = await signersOf(em, rows.map((r) => r.id));
  return rows.map((r) => ({ ...r, signers: signers.filter((s) => s.treasury_id === r.id) }));
}

export function requireHuman(p: Principal, what: string): void {
  if (p.type !== 'user') throw forbidden(`Agents cannot ${what}; a human of the organization does`);
}

/** The treasury's creator, or an owner or admin of the organization. */
export async function requireTreasuryManager(em: EntityManager, p: Principal, t: TreasuryRow, what: string): Promise<void> {
  requireHuman(p, what);
  if (t.created_by === p.id) return;
  const role = await roleOf(em, p);
  if (role !== 'owner' && role !== 'admin') throw forbidden(`Only the treasury's creator, an owner or an admin can ${what}`);
}

/** The caller's signer entry on the treasury, if it is one. */
export const signerEntryOf = (signers: SignerRow[], p: Principal): SignerRow | undefined =>
  signers.find((s) => s.signer_type === p.type && s.signer_id === p.id);
