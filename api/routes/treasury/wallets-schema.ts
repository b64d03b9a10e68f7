// Input schemas of the treasury wallet routes (reference GenerateTreasuryWalletsRequest,
// TreasuryWalletSendRequest). Shapes only; the domain decides which chains exist (and checks a
// send's `to` as its family writes addresses). On send,
// `value_wei` is wei (decimal or 0x-hex text, or a JSON integer); the reference's fields for other
// chains or features this service does not offer are refused by name, never silently dropped.
import { z } from 'zod';
import { MAX_UINT64, address, hexBytes, opt, quantity, wei } from '../agents/evm-fields.ts';

const chainName = z.string().trim().min(1).max(100);

export const walletChainParams = z.object({ chain: z.string().max(100) });

export const generateWalletsBody = z.object({
  chains: opt(z.array(chainName).max(20)),
}).optional().transform((b) => ({ chains: b?.chains }));

export const listWalletsQuery = z.object({
  /** Also the rotated and deactivated wallets (their history). */
  include_inactive: z.enum(['true', 'false', '1', '0']).optional().transform((v) => v === 'true' || v === '1'),
});

export const balanceQuery = z.object({
  /** ERC-20 contracts: a comma list, or the parameter repeated. */
  tokens: z.union([z.string(), z.array(z.string())]).optional()
    .transform((v) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '')))
    .pipe(z.array(address).max(20)),
});

export const exportQuery = z.object({
  /** A retired wallet of the caller to export instead of the active one. */
  wallet_id: z.string().max(64).optional(),
});

const REFUSED: Record<string, string> = {
  token_mint: 'token transfers from treasury wallets are ERC-20 only: send the token contract as `to` and its transfer calldata as `data`',
  token_decimals: 'token transfers from treasury wallets are ERC-20 only', memo: 'is not taken on treasury sends', destination_tag: 'is for XRP only',
  fee_rate_sat_per_vbyte: "is not taken on treasury sends: Bitcoin's fee rate is the node's estimate within the service's floor and cap", xrpl_tx_json: 'is for XRP only', fee_limit_sun: 'is for Tron only', ttl: 'is for Cardano only',
};

export const sendBody = z.object({
  /** Checked by the wallet's family (EVM: a 0x address, EIP-55 when mixed-case). */
  to: z.string().trim().min(1).max(128),
  value_wei: wei,
  data: opt(hexBytes),
  gas_limit: opt(quantity(MAX_UINT64, 'a gas amount').refine((v) => v > 0n, { message: 'must be greater than 0' })),
  gasless: opt(z.boolean()),
  token_mint: z.unknown().optional(), token_decimals: z.unknown().optional(), memo: z.unknown().optional(), destination_tag: z.unknown().optional(),
  fee_rate_sat_per_vbyte: z.unknown().optional(), xrpl_tx_json: z.unknown().optional(), fee_limit_sun: z.unknown().optional(), ttl: z.unknown().optional(),
}).superRefine((o, ctx) => {
  for (const [field, why] of Object.entries(REFUSED)) {
    if ((o as Record<string, unknown>)[field] !== undefined && (o as Record<string, unknown>)[field] !== null) ctx.addIssue({ code: 'custom', path: [field], message: why });
  }
  if (o.gasless === true) ctx.addIssue({ code: 'custom', path: ['gasless'], message: 'sponsored (gasless) transfers are not offered; the wallet pays its gas' });
}).transform((o) => ({ to: o.to as string, valueWei: o.value_wei, data: o.data, gasLimit: o.gas_limit }));
