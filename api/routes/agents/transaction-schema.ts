// Input schemas of the transaction routes (reference SubmitTransactionRequest,
// SignTransactionRequest, SimulateTransactionRequest, SimulateBundleRequest). Shapes only; the
// domain decides the rest. The chain is named by `chain` (a name, or a chain_id) or `chain_id`;
// when both are sent they must name the same chain. `value` is ETH as decimal text (or a JSON
// number) or 0x-hex wei. The reference's fields for other chains and modes change what would be
// sent, so on these EVM routes they are refused by name rather than silently dropped.
import { z } from 'zod';
import { idParam } from '../../input/fields.ts';
import type { TransactionRequest } from '../../../domain/intents/transactions/transaction-request.ts';
import type { FamilyTransactionRequest } from '../../../domain/intents/families/family-request.ts';
import { familyNetworkOf } from '../../../domain/intents/families/family-chains.ts';
import { familyTransactionBody } from './family-transaction-schema.ts';
import { MAX_UINT64, address, chain, hexBytes, nonce, opt, quantity, value, wei } from './evm-fields.ts';

/** ETH as text, or as a JSON number written without an exponent. */
const amount = z.union([value, z.number().nonnegative().transform((n) => String(n)).pipe(value)]);
const gasLimit = quantity(MAX_UINT64, 'a gas amount').refine((v) => v > 0n, { message: 'must be greater than 0' });

/** Fields of the reference that only other chains, or features this service does not offer, use. */
const REFUSED: Record<string, string> = {
  token_mint: 'names a Solana or Tron token; on an EVM chain send the token contract as `to` and its transfer calldata as `data`',
  token_decimals: 'is for Solana and Tron tokens only', create_recipient_token_account: 'is for Solana tokens only',
  compute_unit_price: 'is for Solana only',
  destination_tag: 'is for XRP only', memo: 'is for XRP and Solana only', fee_rate_sat_per_vbyte: 'is for Bitcoin only',
  fee_limit_sun: 'is for Tron only', ttl: 'is for Cardano only', xrpl_tx_json: 'is for XRP only', tron_transaction: 'is for Tron only',
  raw_transaction: 'is not offered on EVM chains: send the fields (to, value, data …)',
};

const refuseOtherChains = (o: Record<string, unknown>, ctx: z.RefinementCtx) => {
  for (const [field, why] of Object.entries(REFUSED)) {
    if (o[field] !== undefined && o[field] !== null) ctx.addIssue({ code: 'custom', path: [field], message: why });
  }
  if (o.mode !== undefined && o.mode !== null && o.mode !== 'eoa') {
    ctx.addIssue({ code: 'custom', path: ['mode'], message: 'only eoa is offered: the agent\'s own key signs' });
  }
  if (o.gasless === true) ctx.addIssue({ code: 'custom', path: ['gasless'], message: 'sponsored (gasless) transactions are not offered; the agent pays its gas' });
};

const transactionFields = {
  chain: opt(chain),
  chain_id: opt(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)),
  to: address,
  value: amount,
  data: opt(hexBytes),
  signing_key_path: opt(z.string().max(512)),
  nonce: opt(nonce),
  gas_limit: opt(gasLimit),
  gas_price: opt(wei),
  max_fee_per_gas: opt(wei),
  max_priority_fee_per_gas: opt(wei),
  simulate_first: opt(z.boolean()),
};

type Parsed = { [K in keyof typeof transactionFields]: z.output<(typeof transactionFields)[K]> };

const toRequest = (b: Parsed, ctx: z.RefinementCtx): TransactionRequest => {
  const named = b.chain ?? b.chain_id;
  if (named === undefined) {
    ctx.addIssue({ code: 'custom', path: ['chain'], message: 'is required: a chain name such as ethereum, or its chain_id (or send chain_id)' });
    return z.NEVER;
  }
  if (b.gas_price !== undefined && (b.max_fee_per_gas !== undefined || b.max_priority_fee_per_gas !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['gas_price'], message: 'gas_price (legacy) and max_fee_per_gas / max_priority_fee_per_gas (EIP-1559) exclude each other' });
    return z.NEVER;
  }
  return {
    chain: named, chainIdCheck: b.chain !== undefined ? b.chain_id : undefined, to: b.to, valueWei: b.value, data: b.data,
    nonce: b.nonce, gasLimit: b.gas_limit, gasPrice: b.gas_price, maxFeePerGas: b.max_fee_per_gas,
    maxPriorityFeePerGas: b.max_priority_fee_per_gas, simulateFirst: b.simulate_first ?? false, signingKeyPath: b.signing_key_path,
  };
};

const evmTransactionBody = z.looseObject(transactionFields).superRefine(refuseOtherChains).transform(toRequest);

/** Parses `o` with `schema`, its issues becoming the caller's. */
function parseWith<S extends z.ZodType>(schema: S, o: unknown, ctx: z.RefinementCtx): z.output<S> {
  const r = schema.safeParse(o);
  if (r.success) return r.data;
  for (const issue of r.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message, path: issue.path } as never);
  return z.NEVER;
}

/** What a transaction body asks for: an EVM transaction, or a transfer on a Bitcoin, Solana, XRP, Cardano or Tron network. */
export type TransactionBody = { kind: 'evm'; req: TransactionRequest } | { kind: 'family'; req: FamilyTransactionRequest };

/**
 * The reference's one body for every chain: a Bitcoin or Solana `chain` (or its chain_id) takes the
 * family's fields (family-transaction-schema.ts), anything else the EVM ones. Documented as the
 * union of both sets of fields.
 */
const numberOrText = z.union([z.number(), z.string()]);
/** The fields as sent (no transforms, so the chosen schema parses them as they came). */
const asSent = {
  // to and value: required by both schemas, except on XRP with xrpl_tx_json (a whole transaction).
  chain: numberOrText.nullish(), chain_id: z.number().nullish(), to: z.string().optional(), value: numberOrText.optional(), data: z.string().nullish(),
  signing_key_path: z.string().nullish(), nonce: numberOrText.nullish(), gas_limit: numberOrText.nullish(), gas_price: numberOrText.nullish(),
  max_fee_per_gas: numberOrText.nullish(), max_priority_fee_per_gas: numberOrText.nullish(), simulate_first: z.boolean().nullish(),
  token_mint: z.string().nullish(), token_decimals: z.number().nullish(), create_recipient_token_account: z.boolean().nullish(),
  fee_rate_sat_per_vbyte: z.number().nullish(), compute_unit_price: numberOrText.nullish(),
  destination_tag: z.number().nullish(), memo: z.string().nullish(), xrpl_tx_json: z.record(z.string(), z.unknown()).nullish(),
};

export const submitTransactionBody = z.looseObject(asSent).transform((o, ctx): TransactionBody => {
  const named = o.chain ?? o.chain_id;
  return named !== undefined && named !== null && familyNetworkOf(named) !== null
    ? { kind: 'family', req: parseWith(familyTransactionBody, o, ctx) }
    : { kind: 'evm', req: parseWith(evmTransactionBody, o, ctx) };
});

const simulateFields = {
  chain: opt(chain), chain_id: transactionFields.chain_id, to: address, value: amount, data: opt(hexBytes),
  signing_key_path: opt(z.string().max(512)), gas_limit: opt(gasLimit),
};
const simulateOne = z.object(simulateFields).transform((b, ctx) => {
  const named = b.chain ?? b.chain_id;
  if (named === undefined) {
    ctx.addIssue({ code: 'custom', path: ['chain'], message: 'is required: a chain name such as ethereum, or its chain_id (or send chain_id)' });
    return z.NEVER;
  }
  return { chain: named, to: b.to, valueWei: b.value, data: b.data, gasLimit: b.gas_limit, signingKeyPath: b.signing_key_path };
});

export const simulateBody = simulateOne;
export const simulateBundleBody = z.object({ transactions: z.array(simulateOne).min(1).max(20) });

export const agentParams = z.object({ agent_id: idParam });
export const transactionParams = z.object({ agent_id: idParam, tx_id: z.string().max(100) });

/** Only the literal values "true" and "1" include the signed bytes (reference IncludeSignedTx). */
const includeSignedTx = z.string().optional().transform((v) => v === 'true' || v === '1');
export const getTransactionQuery = z.object({ include_signed_tx: includeSignedTx });
export const listTransactionsQuery = z.object({
  include_signed_tx: includeSignedTx,
  limit: z.coerce.number().int().min(1).max(100).optional(),
});
