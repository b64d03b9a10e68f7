// The x402 facilitator the operator configured (facilitator_url), spoken to as the x402 project's
// HTTPFacilitatorClient does: POST /verify and POST /settle with
// `{x402Version, paymentPayload, paymentRequirements}`. It goes out through the outbound client
// (SSRF rules, bounded time and size) like every other operator- or user-supplied URL.
import { z } from 'zod';
import type { OutboundClient } from '../net/outbound/client.ts';

const VerifySchema = z.object({ isValid: z.boolean(), invalidReason: z.string().optional(), payer: z.string().optional() }).loose();
const SettleSchema = z.object({
  success: z.boolean(), errorReason: z.string().optional(), payer: z.string().optional(),
  transaction: z.string().optional(), network: z.string().optional(),
}).loose();

export type VerifyResult = z.infer<typeof VerifySchema>;
export type SettleResult = z.infer<typeof SettleSchema>;

/** The facilitator could not be asked (unreachable, refused by policy, not an answer): retry later. */
export class FacilitatorUnavailable extends Error {}

/** Settling waits for the chain: longer than other outbound calls. */
const SETTLE_TIMEOUT_MS = 60_000;
const VERIFY_TIMEOUT_MS = 15_000;

export class X402Facilitator {
  private readonly outbound: OutboundClient;

  constructor(outbound: OutboundClient) {
    this.outbound = outbound;
  }

  async verify(url: string, payment: Record<string, unknown>, requirements: object): Promise<VerifyResult> {
    return answer(VerifySchema, 'verify', await this.post(url, 'verify', payment, requirements, VERIFY_TIMEOUT_MS, 'isValid'));
  }

  async settle(url: string, payment: Record<string, unknown>, requirements: object): Promise<SettleResult> {
    return answer(SettleSchema, 'settle', await this.post(url, 'settle', payment, requirements, SETTLE_TIMEOUT_MS, 'success'));
  }

  private async post(base: string, op: string, payment: Record<string, unknown>, requirements: object, timeoutMs: number, verdictField: string): Promise<unknown> {
    const res = await this.outbound.send({
      method: 'POST', url: `${base.replace(/\/+$/, '')}/${op}`, timeoutMs,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ x402Version: payment.x402Version, paymentPayload: payment, paymentRequirements: requirements }),
    });
    if (!res.ok) throw new FacilitatorUnavailable(`the facilitator's ${op} failed: ${res.kind}`);
    let body: unknown;
    try {
      body = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new FacilitatorUnavailable(`the facilitator's ${op} answered ${res.status} without JSON`);
    }
    // A 4xx with a verdict is an answer (the payment is bad); anything else is the facilitator's trouble.
    const hasVerdict = typeof body === 'object' && body !== null && verdictField in body;
    if (res.status >= 500 || (res.status >= 300 && !hasVerdict)) throw new FacilitatorUnavailable(`the facilitator's ${op} answered ${res.status}`);
    return body;
  }
}

function answer<T>(schema: z.ZodType<T>, op: string, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new FacilitatorUnavailable(`the facilitator's ${op} answer is not an x402 ${op} response`);
  return parsed.data;
}
