// Platform operators: the people who run this service (PLATFORM_ADMIN_EMAILS), as opposed to the
// owners and admins of an organization. They may do what crosses organizations, such as decoding
// Temporal payloads. A human is one if the account's *current* e-mail is listed and verified: the
// e-mail is read on every check (one indexed lookup), so a changed address or a deleted account
// loses the right at once. Verified, because anyone may sign up with any address: the account that
// proved it receives the listed address's mail is the operator, not the first to claim it. Agents
// never are.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from './principal.ts';
import { forbidden } from '../errors.ts';
import { verifiedActiveAccount } from './operator-repository.ts';

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
    const row = await verifiedActiveAccount(em, principal.id);
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
