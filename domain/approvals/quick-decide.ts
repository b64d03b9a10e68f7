// The one-click decision of a mailed link (reference facts §11.1): GET
// /v1/approvals/quick-decide?token=&decision=approved|rejected, public (the token is the
// credential), answered with a 302 to the dashboard's page of the approval (`?decided=true`).
// The link decides as the human it was mailed to, who must still be allowed to (the addressee, an
// owner or an admin) and the approval still pending, through the same path as POST …/decide.
// A risk tier 2 or 3 approval needs a step-up a link cannot carry: the link is refused (403
// `step_up_required`, with the dashboard's address to decide it there) and stays unspent.
// Unknown links are a 404; a spent or expired one a 410. A link is spent by one conditional
// UPDATE before deciding, so two clicks cannot both decide; when the decision then cannot be
// carried out for a reason other than the approval being decided already (the workflow engine is
// down, say) the link is given back.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import { Problem, gone, notFound } from '../errors.ts';
import type { ApprovalCommands } from './approval-commands.ts';
import { findApprovalById, type ApprovalDecisionStatus, type ApprovalRow } from './approval-repository.ts';
import { dashboardUrlOf, quickLinkDigest, QUICK_LINK_PREFIX } from './quick-links.ts';
import { findQuickLink, spendQuickLink, unspendQuickLink } from './quick-link-repository.ts';

export type QuickDecideDeps = { db: () => EntityManager; approvals: Pick<ApprovalCommands, 'decide'>; publicUrl: string };

/** Where the browser goes once the link decided. */
export type QuickDecision = { approval: ApprovalRow; location: string };

export class QuickDecide {
  private readonly d: QuickDecideDeps;

  constructor(deps: QuickDecideDeps) {
    this.d = deps;
  }

  async decide(ctx: ActionContext, token: string, decision: ApprovalDecisionStatus): Promise<QuickDecision> {
    const em = this.d.db();
    const link = token.startsWith(QUICK_LINK_PREFIX) ? await findQuickLink(em, quickLinkDigest(token)) : null;
    const approval = link ? await findApprovalById(em, link.approval_id) : null;
    if (!link || !approval) throw notFound('Quick-decide link');
    if (link.used_at) throw gone('This quick-decide link was already used; each link works once');
    if (new Date(link.expires_at).getTime() <= Date.now()) throw gone('This quick-decide link has expired (links last 7 days); decide in the dashboard');
    const dashboard = dashboardUrlOf(this.d.publicUrl, approval.id);
    if (approval.risk_tier >= 2) {
      throw new Problem(403, `A risk tier ${approval.risk_tier} approval needs a step-up that a mailed link cannot give: decide it in the dashboard at ${dashboard}`, {
        type: 'step_up_required', title: 'Step-Up Required', extras: { approval_id: approval.id, risk_tier: approval.risk_tier, dashboard_url: dashboard },
      });
    }
    if (!await spendQuickLink(em, link.id)) throw gone('This quick-decide link was already used; each link works once');
    // The link's human decides, as if signed in: the same checks and audit record as POST …/decide.
    const asHuman: ActionContext = { ...ctx, principal: { type: 'user', id: link.user_id, orgId: approval.org_id, via: 'jwt' } };
    try {
      const decided = await this.d.approvals.decide(asHuman, approval.id, { decision, reason: null, via: 'quick_link' });
      return { approval: decided, location: `${dashboard}?decided=true` };
    } catch (e) {
      // Decided or expired already (409), or no longer allowed (403): the link is spent for good.
      if (!(e instanceof Problem) || (e.status !== 409 && e.status !== 403)) await unspendQuickLink(em, link.id);
      throw e;
    }
  }
}
