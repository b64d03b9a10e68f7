// What an x402 payment for one request must be (issue 34 §4; reference facts §17), in the two
// forms clients read: the 402 body in x402 version 1 (what the published SDK reads: `accepts[0]`
// with both `price` in USD and `maxAmountRequired` in the asset's atomic units), and the version 2
// `PAYMENT-REQUIRED` header (what the x402 project's own clients read first). Both describe the
// same payment: scheme `exact` on the configured network, asset and recipient.
import { Problem } from '../errors.ts';
import { X402_PRICES, type BillableAction } from './request-prices.ts';

export type X402Settings = {
  enabled: boolean;
  payTo: string | null;
  /** CAIP-2, e.g. eip155:8453 (Base). */
  network: string;
  /** The token contract (EIP-3009), e.g. Base USDC. */
  asset: string;
  /** The token's EIP-712 domain name and version, which the payer signs over. */
  assetName: string;
  assetVersion: string;
  assetDecimals: number;
  facilitatorUrl: string | null;
  maxTimeoutSeconds: number;
};

/** The settings can take payments: switched on, with a recipient and a facilitator. */
export const acceptsPayments = (s: X402Settings): boolean => s.enabled && s.payTo !== null && s.facilitatorUrl !== null;

export type RequirementsV1 = {
  scheme: 'exact'; network: string; maxAmountRequired: string; resource: string; description: string;
  mimeType: string; payTo: string; maxTimeoutSeconds: number; asset: string; extra: { name: string; version: string };
};
export type RequirementsV2 = {
  scheme: 'exact'; network: string; amount: string; asset: string; payTo: string;
  maxTimeoutSeconds: number; extra: { name: string; version: string };
};

/** '0.0015' USD in a token of `decimals` places: '1500' for 6; rounded up when it does not divide. */
export function atomicAmount(usd: string, decimals: number): string {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(usd);
  if (!m) throw new Error(`not a dollar amount: ${usd}`);
  const fraction = m[2] ?? '';
  const kept = fraction.slice(0, decimals).padEnd(decimals, '0');
  const roundUp = /[1-9]/.test(fraction.slice(decimals)) ? 1n : 0n;
  return (BigInt(m[1]! + kept) + roundUp).toString();
}

export function requirementsV1(s: X402Settings, action: BillableAction, resource: string): RequirementsV1 {
  return {
    scheme: 'exact', network: s.network, maxAmountRequired: atomicAmount(X402_PRICES[action], s.assetDecimals),
    resource, description: action, mimeType: 'application/json', payTo: s.payTo ?? '',
    maxTimeoutSeconds: s.maxTimeoutSeconds, asset: s.asset, extra: { name: s.assetName, version: s.assetVersion },
  };
}

export function requirementsV2(s: X402Settings, action: BillableAction): RequirementsV2 {
  return {
    scheme: 'exact', network: s.network, amount: atomicAmount(X402_PRICES[action], s.assetDecimals), asset: s.asset,
    payTo: s.payTo ?? '', maxTimeoutSeconds: s.maxTimeoutSeconds, extra: { name: s.assetName, version: s.assetVersion },
  };
}

/**
 * The 402 answer: problem details whose body also is the x402 version 1 payment requirement
 * (flat, as the current reference serves it), and the version 2 requirement in its header.
 */
export function paymentRequired(s: X402Settings, action: BillableAction, resource: string, error: string): Problem {
  const v2 = {
    x402Version: 2, error,
    resource: { url: resource, description: action, mimeType: 'application/json' },
    accepts: [requirementsV2(s, action)],
  };
  return new Problem(402, error, {
    type: 'payment_required', title: 'Payment Required',
    extras: {
      x402Version: 1, error,
      accepts: [{ ...requirementsV1(s, action, resource), price: X402_PRICES[action] }],
      description: `${action}: pay ${X402_PRICES[action]} USD with x402 (scheme exact, ${s.network})`,
    },
    headers: { 'PAYMENT-REQUIRED': Buffer.from(JSON.stringify(v2)).toString('base64') },
  });
}
