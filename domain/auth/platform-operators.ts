// Platform operators: the people who run this service (PLATFORM_ADMIN_EMAILS), as opposed to the
// owners and admins of an organization. They may do what crosses organizations, such as decoding
// Temporal payloads. A human is one if the account's *current* e-mail is listed: the e-mail is
// read on every check (one indexed lookup), so a changed address or a deleted account loses the
// right at once. Agents never are.
//
// Caveat: an address is matched as the account has it; sign-up does not verify addresses yet, so
// the listed operators should hold their accounts before the service is reachable by others.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from './principal.ts';
import { forbidden } from '../errors.ts';

export const OPERATORS_ONLY = 'platform operators only';

export type OperatorAccount = { id: string; orgId: string | null; email: string };

export class PlatformOperators {
  private readonly emails: ReadonlySet<string>;

  constructor(emails: string[]) {
    this.emails = new Set(emails.map((e) => e.trim().toLowerCase()));
  }

  /** The operator's account, or null for anyone else (agents, other humans, gone accounts). */
  async operatorAccount(em: EntityManager, principal: Pick<Principal, 'type' | 'id'>): Promise<OperatorAccount | null> {
    if (principal.type !== 'user' || this.emails.size === 0) return null;
    const rows = await em.execute<{ email: string; org_id: string | null }[]>(
      "SELECT email, org_id FROM users WHERE id = ? AND status = 'active'", [principal.id]);
    const row = rows[0];
    if (!row || !this.emails.has(row.email.toLowerCase())) return null;
    return { id: principal.id, orgId: row.org_id, email: row.email };
  }

  async isOperator(em: EntityManager, principal: Pick<Principal, 'type' | 'id'>): Promise<boolean> {
    return (await this.operatorAccount(em, principal)) !== null;
  }

  /** 403 "platform operators only" unless the principal is one. */
  async requireOperator(em: EntityManager, principal: Pick<Principal, 'type' | 'id'>): Promise<OperatorAccount> {
    const account = await this.operatorAccount(em, principal);
    if (!account) throw forbidden(OPERATORS_ONLY);
    return account;
  }
}
