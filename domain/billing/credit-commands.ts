// Prepaid credits as an organization sees and steers them (issue 34 §2; reference facts §16): the
// balance and what of it expires soon, the ledger page by page, and how a request over the
// monthly quota is paid (credits or x402; owners and admins choose). Top-ups land through the
// payment processor (topUp, once per payment).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { callerOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import {
  addCredits, balanceOf, ledgerPage, overageMethodOf, setOverageMethod, type LedgerEntry, type OverageMethod,
} from './credit-repository.ts';

/** The balance view's window for credits about to expire (reference: expiring_within_90_days). */
export const EXPIRING_WITHIN_DAYS = 90;

export type CreditBalance = { balanceMicros: number; expiringMicros: number; earliestExpiry: Date | null };
export type CreditLedgerPage = { entries: LedgerEntry[]; total: number; offset: number; limit: number };

export class BillingCredits {
  private readonly d: { db: () => EntityManager; audit: ActionAudit };

  constructor(deps: { db: () => EntityManager; audit: ActionAudit }) {
    this.d = deps;
  }

  balance(ctx: ActionContext): Promise<CreditBalance> {
    return balanceOf(this.d.db(), callerOf(ctx).orgId, EXPIRING_WITHIN_DAYS);
  }

  /** `limit` entries from `offset`, newest first. */
  async transactions(ctx: ActionContext, offset: number, limit: number): Promise<CreditLedgerPage> {
    const { entries, total } = await ledgerPage(this.d.db(), callerOf(ctx).orgId, offset, limit);
    return { entries, total, offset, limit };
  }

  overageMethod(ctx: ActionContext): Promise<OverageMethod> {
    return overageMethodOf(this.d.db(), callerOf(ctx).orgId);
  }

  async setOverageMethod(ctx: ActionContext, method: OverageMethod): Promise<OverageMethod> {
    const em = this.d.db();
    const caller = callerOf(ctx);
    await requireManager(em, caller);
    const previous = await overageMethodOf(em, caller.orgId);
    await setOverageMethod(em, caller.orgId, method);
    await this.d.audit.record(ctx, 'billing.overage_method_set', {
      resourceType: 'organization', resourceId: caller.orgId, details: { overage_method: method, previous },
    });
    return method;
  }

  /** A paid top-up: lands once per processor payment (`externalRef`); false when it already had. */
  topUp(orgId: string, micros: number, externalRef: string, description: string): Promise<boolean> {
    return addCredits(this.d.db(), orgId, micros, { externalRef, description });
  }
}
