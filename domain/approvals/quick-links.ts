// Quick-decide links (reference facts §11.1): when an approval opens, each active owner and admin
// of its organization is mailed a link of their own (`aqd_` + 32 random bytes; only its SHA-256
// digest is stored, single use, 7 days) to approve or reject it with one click:
//   GET /v1/approvals/quick-decide?token=…&decision=approved|rejected → 302 to the dashboard.
// Mail goes through the durable outbox in the transaction that stores the links: both commit or
// neither, and a repeated call (an activity retried after a crash) finds the links and sends
// nothing again. The mail names the action, never the summary (it may quote what the agent wants).
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mailer } from '../mail/mailer.ts';
import type { ApprovalRow } from './approval-repository.ts';
import { approversOf, hasQuickLinks, insertQuickLink } from './quick-link-repository.ts';

export const QUICK_LINK_PREFIX = 'aqd_';
export const QUICK_LINK_TTL_MS = 7 * 24 * 3600 * 1000;

export const quickLinkDigest = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** The dashboard's page of an approval (where a step-up can be given). */
export const dashboardUrlOf = (publicUrl: string, approvalId: string) => `${publicUrl}/approvals/${approvalId}`;

export type QuickLinkDeps = { em: () => EntityManager; mailer: Pick<Mailer, 'transaction'>; publicUrl: string };

export class ApprovalQuickLinks {
  private readonly d: QuickLinkDeps;

  constructor(deps: QuickLinkDeps) {
    this.d = deps;
  }

  /** Mails every owner and admin their link, once per approval; how many were mailed. */
  async mailApprovers(a: ApprovalRow): Promise<number> {
    return this.d.mailer.transaction(this.d.em(), async (tx, send) => {
      if (a.status !== 'pending' || await hasQuickLinks(tx, a.id)) return 0;
      let mailed = 0;
      for (const human of await approversOf(tx, a.org_id)) {
        const token = QUICK_LINK_PREFIX + randomBytes(32).toString('base64url');
        if (!await insertQuickLink(tx, { approvalId: a.id, userId: human.id, digest: quickLinkDigest(token), lifeSeconds: QUICK_LINK_TTL_MS / 1000 })) continue;
        await send({ to: human.email, subject: `Approval requested: ${a.action} (risk tier ${a.risk_tier})`, text: this.text(a, token) });
        mailed++;
      }
      return mailed;
    });
  }

  private text(a: ApprovalRow, token: string): string {
    const link = (decision: string) => `${this.d.publicUrl}/v1/approvals/quick-decide?token=${token}&decision=${decision}`;
    const dashboard = dashboardUrlOf(this.d.publicUrl, a.id);
    const stepUp = a.risk_tier >= 2
      ? [`This is a risk tier ${a.risk_tier} request: it needs a step-up (your password${a.risk_tier === 3 ? ' is not enough: TOTP, a passkey or a mobile device' : ' or a re-auth token'}), so the links below send you to the dashboard to decide it there:`]
      : ['Decide it with one click (each link works once, for 7 days):'];
    return [
      a.run_id ? 'An automation run waits for your approval.' : 'An agent asks for your approval.',
      '',
      `Action:      ${a.action}`,
      `Target:      ${a.target_type} ${a.target_id}`,
      `Risk tier:   ${a.risk_tier}`,
      ...(a.reason ? [`Reason:      ${a.reason}`] : []),
      ...(a.expires_at ? [`Expires at:  ${new Date(a.expires_at).toISOString()}`] : []),
      '',
      ...stepUp,
      `  Approve (${a.id}): ${link('approved')}`,
      `  Reject  (${a.id}): ${link('rejected')}`,
      '',
      `Details: ${dashboard}`,
      `Approval id: ${a.id}`,
    ].join('\n');
  }
}
