// The body of a transaction on a Bitcoin, Solana, XRP Ledger or Tron network (the same routes as EVM:
// transaction-schema.ts hands the body here when `chain` names one). Reference
// SubmitTransactionRequest's non-EVM fields: `value` in the chain's major unit (BTC, SOL, XRP, ADA, TRX) or, with
// `token_mint` (an SPL mint, or a TRC-20 contract's T… address), in the token's (token_decimals,
// default 6); `fee_rate_sat_per_vbyte` (Bitcoin); `fee_limit_sun` (Tron TRC-20); `ttl` (Cardano:
// seconds until the transaction expires unlanded, default 7200); ours: `compute_unit_price` (Solana micro-lamports per compute unit) and
// `create_recipient_token_account` (Solana: create the recipient's associated token account when
// it has none; by default it is created when the agent's ata_allowlist allows it); XRP:
// `destination_tag`, `memo`, or `xrpl_tx_json` (a whole transaction, instead of `to`/`value`). Fields of EVM
// or of other chains are refused by name rather than silently dropped.
import { z } from 'zod';
import type { FamilyTransactionRequest } from '../../../domain/intents/families/family-request.ts';
import { familyNetworkOf } from '../../../domain/intents/families/family-chains.ts';
import { chain, opt, quantity } from './evm-fields.ts';

const REFUSED: Record<string, string> = {
  data: 'is EVM calldata; Bitcoin and Solana transfers here carry none', nonce: 'is for EVM chains', gas_limit: 'is for EVM chains',
  gas_price: 'is for EVM chains', max_fee_per_gas: 'is for EVM chains', max_priority_fee_per_gas: 'is for EVM chains',
  destination_tag: 'is for XRP only', memo: 'is not offered for Bitcoin, Solana, Cardano and Tron transfers here',
  xrpl_tx_json: 'is for XRP only', tron_transaction: 'is for unified sign (POST …/sign); here send the fields (to, value, token_mint …)',
  raw_transaction: 'is not offered: send the fields (to, value …) and the service builds the transaction',
};

/** XRP's own fields (family-request.ts): offered only on an XRP Ledger network. */
const XRP_FIELDS = new Set(['destination_tag', 'memo', 'xrpl_tx_json']);

const refuseOthers = (o: Record<string, unknown>, ctx: z.RefinementCtx) => {
  const named = o.chain ?? o.chain_id;
  const xrp = (typeof named === 'string' || typeof named === 'number') && familyNetworkOf(named)?.family === 'xrp';
  for (const [field, why] of Object.entries(REFUSED)) {
    if (xrp && XRP_FIELDS.has(field)) continue;
    if (o[field] !== undefined && o[field] !== null) ctx.addIssue({ code: 'custom', path: [field], message: why });
  }
  if (o.simulate_first === true) ctx.addIssue({ code: 'custom', path: ['simulate_first'], message: 'simulation is for EVM chains' });
  if (o.mode !== undefined && o.mode !== null && o.mode !== 'eoa') ctx.addIssue({ code: 'custom', path: ['mode'], message: 'only eoa is offered' });
  if (o.gasless === true) ctx.addIssue({ code: 'custom', path: ['gasless'], message: 'sponsored transactions are not offered' });
};

/** A decimal amount as text (a JSON number is taken as written, without an exponent). */
const decimalText = z.union([z.string().trim().max(100), z.number().nonnegative().transform((n) => String(n))])
  .refine((v) => /^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(v), { message: 'must be a decimal amount such as "0.001" (no sign or exponent)' });

const familyTransactionFields = {
  chain: opt(chain),
  chain_id: opt(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)),
  to: opt(z.string().trim().min(1).max(128)),
  value: opt(decimalText),
  token_mint: opt(z.string().trim().min(32).max(44)),
  token_decimals: opt(z.number().int().min(0).max(255)),
  create_recipient_token_account: opt(z.boolean()),
  fee_rate_sat_per_vbyte: opt(z.number().int().min(1).max(1_000_000)),
  compute_unit_price: opt(quantity(2n ** 64n - 1n, 'micro-lamports per compute unit')),
  fee_limit_sun: opt(quantity(BigInt(Number.MAX_SAFE_INTEGER), 'sun')),
  ttl: opt(z.number().int().min(1).max(86_400)),
  signing_key_path: opt(z.string().max(512)),
  // XRP: a Payment's DestinationTag (uint32) and memo text; or a whole transaction (xrpl_tx_json) instead of to/value.
  destination_tag: opt(z.number().int().min(0).max(4294967295)),
  memo: opt(z.string().min(1).max(512)),
  xrpl_tx_json: opt(z.record(z.string(), z.unknown())),
};

export const familyTransactionBody = z.looseObject(familyTransactionFields).superRefine(refuseOthers).transform((b, ctx): FamilyTransactionRequest => {
  const named = b.chain ?? b.chain_id;
  if (named === undefined) {
    ctx.addIssue({ code: 'custom', path: ['chain'], message: 'is required' });
    return z.NEVER;
  }
  if (b.xrpl_tx_json !== undefined) {
    for (const f of ['to', 'value', 'destination_tag', 'memo'] as const) {
      if (b[f] !== undefined) ctx.addIssue({ code: 'custom', path: [f], message: 'comes from xrpl_tx_json: send one or the other' });
    }
    // to and value are the provided transaction's (family-transaction-commands.ts reads them from it).
    return { chain: named, to: '', value: '0', xrplTxJson: b.xrpl_tx_json, signingKeyPath: b.signing_key_path };
  }
  if (b.to === undefined || b.value === undefined) {
    ctx.addIssue({ code: 'custom', path: [b.to === undefined ? 'to' : 'value'], message: 'is required' });
    return z.NEVER;
  }
  return {
    chain: named, to: b.to, value: b.value, destinationTag: b.destination_tag, memo: b.memo, tokenMint: b.token_mint, tokenDecimals: b.token_decimals,
    createRecipientTokenAccount: b.create_recipient_token_account, feeRateSatPerVbyte: b.fee_rate_sat_per_vbyte,
    computeUnitPrice: b.compute_unit_price, feeLimitSun: b.fee_limit_sun, ttl: b.ttl, signingKeyPath: b.signing_key_path,
  };
});
