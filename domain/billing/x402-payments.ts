// Paying one request with x402 (issue 34 §4; spec §7 stage 3): the payment a request presents is
// claimed by its digest (single use), verified with the configured facilitator, and, once the
// request has been served, settled. A request that fails gives its payment back unsettled; a
// settlement that fails is recorded and retried by the `x402-settle:<digest>` workflow
// (x402-settle-retries.ts) while the payer's authorization is still valid.
//
// A crash between serving and settling leaves the claim unsettled: the payer is not charged for
// that request (at most the requests one process had in flight).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../log.ts';
import type { BillableAction } from './request-prices.ts';
import type { PresentedPayment } from './x402-payment-header.ts';
import { Problem } from '../errors.ts';
import { FacilitatorUnavailable, type X402Facilitator } from './x402-facilitator.ts';
import { findSettlement, type ChainRequests } from './x402-settlement-lookup.ts';
import { paymentRequired, requirementsV1, requirementsV2, type X402Settings } from './x402-requirements.ts';
import {
  claimPayment, loadX402Settings, markSettleFailed, markSettled, paymentByDigest, recordPayer, releasePayment,
} from './x402-repository.ts';

/** How long a process keeps the settings before reading them again (a change reaches every api process within this). */
export const SETTINGS_TTL_MS = 5_000;

/** Clock difference allowed between the payer and this service. */
const VALIDITY_SLACK_SECONDS = 30;

export type AcceptedPayment = {
  digest: string; payment: Record<string, unknown>; requirements: Record<string, unknown>;
  network: string; facilitatorUrl: string; payer: string | null;
};

export type SettleRetries = { start(digest: string): Promise<void> };

type Deps = { db: () => EntityManager; facilitator: X402Facilitator; retries: SettleRetries; log: Logger; now?: () => number };

export class X402Payments {
  private readonly d: Deps;
  private readonly now: () => number;
  private cached: { value: Promise<X402Settings>; at: number } | null = null;

  constructor(deps: Deps) {
    this.d = deps;
    this.now = deps.now ?? Date.now;
  }

  /** The platform's x402 settings, kept SETTINGS_TTL_MS. */
  settings(): Promise<X402Settings> {
    if (!this.cached || this.now() - this.cached.at > SETTINGS_TTL_MS) {
      const value = loadX402Settings(this.d.db());
      this.cached = { value, at: this.now() };
      value.catch(() => { this.cached = null; });
    }
    return this.cached.value;
  }

  /** Drops the kept settings (this process changed them). */
  invalidate(): void {
    this.cached = null;
  }

  /** Claims and verifies `presented` for one `action` request; a 402 when it cannot pay for it. */
  async accept(s: X402Settings, action: BillableAction, presented: PresentedPayment, resource: string, route: string): Promise<AcceptedPayment> {
    const requirements: Record<string, unknown> = presented.version === 1 ? requirementsV1(s, action, resource) : requirementsV2(s, action);
    const amount = String(requirements.maxAmountRequired ?? requirements.amount);
    // A payment is claimed for as long as its row is kept; an authorization that outlives the
    // asked timeout could be presented again after its settled row is pruned (the chain's nonce
    // check is then the only guard), so one is refused.
    const validBefore = Number((presented.payment.payload as { authorization?: { validBefore?: unknown } }).authorization?.validBefore);
    if (Number.isFinite(validBefore) && validBefore > this.now() / 1000 + s.maxTimeoutSeconds + VALIDITY_SLACK_SECONDS) {
      throw paymentRequired(s, action, resource, `The payment is valid for too long: at most ${s.maxTimeoutSeconds} seconds from now`);
    }
    const claim = { digest: presented.digest, orgId: null, route, amount, network: s.network, payment: presented.payment, requirements };
    if (!(await claimPayment(this.d.db(), claim))) throw paymentRequired(s, action, resource, 'This payment was already used: sign a new one');
    const facilitatorUrl = s.facilitatorUrl!;
    try {
      const verdict = await this.d.facilitator.verify(facilitatorUrl, presented.payment, requirements);
      if (!verdict.isValid) throw paymentRequired(s, action, resource, `The payment was refused: ${verdict.invalidReason ?? 'invalid'}`);
      return { digest: presented.digest, payment: presented.payment, requirements, network: s.network, facilitatorUrl, payer: verdict.payer ?? null };
    } catch (e) {
      await releasePayment(this.d.db(), presented.digest);
      if (e instanceof FacilitatorUnavailable) {
        this.d.log.warn('x402 facilitator unavailable for verify', { error: e.message });
        throw new Problem(503, 'The payment could not be verified now: retry shortly', { type: 'payment_unavailable', headers: { 'Retry-After': '5' } });
      }
      throw e;
    }
  }

  /** The request failed: its payment paid for nothing and may be used again. */
  async release(a: AcceptedPayment): Promise<void> {
    await releasePayment(this.d.db(), a.digest);
  }

  /**
   * Settles a served request's payment: the payment response header (base64 JSON) on success;
   * null when it failed now and was handed to the retry workflow.
   */
  async settle(a: AcceptedPayment, orgId: string | null): Promise<string | null> {
    const em = this.d.db();
    await recordPayer(em, a.digest, orgId, a.payer);
    let error: string;
    try {
      const r = await this.d.facilitator.settle(a.facilitatorUrl, a.payment, a.requirements);
      if (r.success) {
        await markSettled(em, a.digest, r.transaction ?? null);
        const response = { success: true, transaction: r.transaction ?? '', network: r.network ?? a.network, payer: r.payer ?? a.payer ?? '' };
        return Buffer.from(JSON.stringify(response)).toString('base64');
      }
      error = r.errorReason ?? 'settle refused';
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    await markSettleFailed(em, a.digest, error);
    this.d.log.warn('x402 settlement failed; retrying in the background', { error });
    await this.d.retries.start(a.digest);
    return null;
  }
}

/**
 * One retry of a failed settlement (the workflow's activity): settled, or a throw to be retried.
 * 'gone' when there is nothing to settle (released, or deleted with its organization's data).
 * Re-delivered after a crash, it asks again: the facilitator refuses a payment it settled, and
 * the chain (when the chains table knows the network) shows whether it landed.
 */
export async function settleRecorded(em: EntityManager, facilitator: X402Facilitator, digest: string, chain?: ChainRequests): Promise<'settled' | 'gone'> {
  const p = await paymentByDigest(em, digest);
  if (!p) return 'gone';
  if (p.status === 'settled') return 'settled';
  const { facilitatorUrl } = await loadX402Settings(em);
  if (!facilitatorUrl) throw new Error('no facilitator is configured');
  let error: string;
  try {
    const r = await facilitator.settle(facilitatorUrl, p.payment, p.requirements);
    if (r.success) {
      await markSettled(em, digest, r.transaction ?? null);
      return 'settled';
    }
    error = r.errorReason ?? 'settle refused';
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  // Refused now, it may have landed before (an answer lost): the chain says.
  const landed = chain ? await findSettlement(chain, p.requirements, p.payment).catch(() => null) : null;
  if (landed) {
    await markSettled(em, digest, landed);
    return 'settled';
  }
  await markSettleFailed(em, digest, error);
  throw new Error(`settlement failed: ${error}`);
}
