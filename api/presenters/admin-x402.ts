// The platform's x402 settings as operators see them: the reference's X402ConfigResponse fields
// (pay_to, network, scheme, free_tier_limit, facilitator_url) and the spec's (enabled,
// payment_address), plus the token that is paid in. Unset addresses are left out.
import { z } from 'zod';
import { shape } from './registry.ts';
import type { X402SettingsView } from '../../domain/billing/x402-admin.ts';

export const X402SettingsSchema = shape('X402Settings', z.object({
  enabled: z.boolean(),
  pay_to: z.string().optional(),
  payment_address: z.string().optional(),
  network: z.string(),
  scheme: z.literal('exact'),
  free_tier_limit: z.number().int(),
  facilitator_url: z.string().optional(),
  asset: z.string(),
  asset_name: z.string(),
  asset_version: z.string(),
  asset_decimals: z.number().int(),
  max_timeout_seconds: z.number().int(),
}), "The platform's x402 payment settings");

export function presentX402Settings(v: X402SettingsView): z.output<typeof X402SettingsSchema> {
  return {
    enabled: v.enabled,
    ...(v.payTo !== null ? { pay_to: v.payTo, payment_address: v.payTo } : {}),
    network: v.network, scheme: v.scheme, free_tier_limit: v.freeTierLimit,
    ...(v.facilitatorUrl !== null ? { facilitator_url: v.facilitatorUrl } : {}),
    asset: v.asset, asset_name: v.assetName, asset_version: v.assetVersion, asset_decimals: v.assetDecimals,
    max_timeout_seconds: v.maxTimeoutSeconds,
  };
}
