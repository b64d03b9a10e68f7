// The platform's x402 payment settings (spec §4.14; reference adminGetX402Config /
// adminUpdateX402Config): platform operators only. PUT merges the fields it names, in either
// spelling (pay_to or payment_address).
import { z } from 'zod';
import { route } from '../../route.ts';
import { presentX402Settings, X402SettingsSchema } from '../../presenters/admin-x402.ts';
import { NOT_AN_OPERATOR } from './operator-only.ts';
import type { X402SettingsChange } from '../../../domain/billing/x402-admin.ts';

const TAG = 'Admin';

const httpUrl = z.string().max(2048).refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), 'must be an http(s) URL');
const x402Body = z.object({
  enabled: z.boolean().optional(),
  pay_to: z.string().max(200).nullable().optional(),
  payment_address: z.string().max(200).nullable().optional(),
  network: z.string().regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, 'a CAIP-2 chain id, e.g. eip155:8453').optional(),
  scheme: z.literal('exact').optional(),
  free_tier_limit: z.number().int().min(0).optional(),
  facilitator_url: httpUrl.nullable().optional(),
  asset: z.string().min(1).max(200).optional(),
  asset_name: z.string().min(1).max(100).optional(),
  asset_version: z.string().min(1).max(20).optional(),
  asset_decimals: z.number().int().min(0).max(18).optional(),
  max_timeout_seconds: z.number().int().min(10).max(3600).optional(),
}).strict().refine((b) => b.pay_to === undefined || b.payment_address === undefined || b.pay_to === b.payment_address, {
  path: ['payment_address'], message: 'pay_to and payment_address name the same address: send one',
});

function changeOf(b: z.output<typeof x402Body>): X402SettingsChange {
  const payTo = b.pay_to !== undefined ? b.pay_to : b.payment_address;
  const c: X402SettingsChange = {};
  if (b.enabled !== undefined) c.enabled = b.enabled;
  if (payTo !== undefined) c.payTo = payTo;
  if (b.network !== undefined) c.network = b.network;
  if (b.free_tier_limit !== undefined) c.freeTierLimit = b.free_tier_limit;
  if (b.facilitator_url !== undefined) c.facilitatorUrl = b.facilitator_url;
  if (b.asset !== undefined) c.asset = b.asset;
  if (b.asset_name !== undefined) c.assetName = b.asset_name;
  if (b.asset_version !== undefined) c.assetVersion = b.asset_version;
  if (b.asset_decimals !== undefined) c.assetDecimals = b.asset_decimals;
  if (b.max_timeout_seconds !== undefined) c.maxTimeoutSeconds = b.max_timeout_seconds;
  return c;
}

export const x402AdminRoutes = [
  route({
    method: 'GET', path: '/v1/admin/x402', tag: TAG, auth: 'user',
    summary: 'The platform x402 payment settings (platform operators)',
    success: { status: 200, description: 'The settings', schema: X402SettingsSchema },
    errors: { 403: NOT_AN_OPERATOR },
    handler: async ({ action, services: s }) => presentX402Settings(await s.x402Admin.get(action)),
  }),
  route({
    method: 'PUT', path: '/v1/admin/x402', tag: TAG, auth: 'user',
    summary: 'Change the platform x402 payment settings (platform operators): the fields sent, merged over the stored ones',
    body: x402Body,
    success: { status: 200, description: 'The settings as stored', schema: X402SettingsSchema },
    errors: { 400: 'Invalid field, or enabled without pay_to and facilitator_url', 403: NOT_AN_OPERATOR },
    handler: async ({ body, action, services: s }) => presentX402Settings(await s.x402Admin.update(action, changeOf(body))),
  }),
];
