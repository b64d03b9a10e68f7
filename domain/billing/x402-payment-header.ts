// A payment a request presents (reference facts §17): `PAYMENT-SIGNATURE` (x402 version 2) or
// `X-PAYMENT` (version 1), each base64 of the JSON payment payload; the published SDK sends the
// JSON itself, unencoded, so both are read. The digest that makes a proof single-use is taken over
// the signed part (`payload`) in a canonical form, so one signature is one payment whichever way
// it was encoded.
import { createHash } from 'node:crypto';
import { z } from 'zod';

const MAX_HEADER_CHARS = 16 * 1024;

const PaymentSchema = z.object({
  x402Version: z.union([z.literal(1), z.literal(2)]),
  scheme: z.string().max(40).optional(),
  network: z.string().max(100).optional(),
  accepted: z.record(z.string(), z.unknown()).optional(),
  payload: z.record(z.string(), z.unknown()),
}).loose();

export type PresentedPayment = {
  version: 1 | 2;
  /** The whole payment payload, as the facilitator takes it. */
  payment: Record<string, unknown>;
  /** SHA-256 (hex) of the canonical signed part. */
  digest: string;
};

/** The payment a request's headers carry, null when none; a header that is not a payment throws. */
export function readPaymentHeader(headers: { paymentSignature?: string; xPayment?: string }): PresentedPayment | null {
  const raw = (headers.paymentSignature || headers.xPayment || '').trim();
  if (!raw) return null;
  if (raw.length > MAX_HEADER_CHARS) throw new MalformedPayment('the payment header is too long');
  let json: unknown;
  try {
    json = JSON.parse(raw.startsWith('{') ? raw : Buffer.from(raw, 'base64').toString('utf8'));
  } catch {
    throw new MalformedPayment('the payment header is neither JSON nor base64 of JSON');
  }
  const parsed = PaymentSchema.safeParse(json);
  if (!parsed.success) throw new MalformedPayment('the payment header is not an x402 payment payload (x402Version 1 or 2, payload)');
  const payment = parsed.data as Record<string, unknown> & z.infer<typeof PaymentSchema>;
  return { version: payment.x402Version, payment, digest: createHash('sha256').update(canonicalJson(payment.payload)).digest('hex') };
}

export class MalformedPayment extends Error {}

/** JSON with object keys sorted at every level. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}
