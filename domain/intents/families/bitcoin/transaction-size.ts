// Sizes and fee-rate rules of the transactions the Bitcoin family builds: every input spends the
// agent's P2WPKH coins, outputs go to any standard destination. The size is estimated before
// signing with the largest signature DER allows (72 bytes + sighash byte), so the real transaction
// is never bigger than the estimate and the fee never falls below rate × real vsize.
import { invalidField } from '../../../errors.ts';
import type { OutputKind } from './bitcoin-network.ts';

/** Output script lengths per destination type. */
const SCRIPT_BYTES: Record<OutputKind, number> = { p2pkh: 25, p2sh: 23, p2wpkh: 22, p2wsh: 34, p2tr: 34 };

/**
 * Below these, nodes refuse an output as dust (Bitcoin Core and btcd at the default 3 sat/vB dust
 * relay fee: 3 × (output size + the size of spending it)).
 */
export const DUST_LIMIT_SATS: Record<OutputKind, bigint> = { p2pkh: 546n, p2sh: 540n, p2wpkh: 294n, p2wsh: 330n, p2tr: 330n };

/** Fee-rate policy: below the floor nodes do not relay; above the cap it is a mistake, not a fee. */
export type FeeRatePolicy = { floor: number; cap: number };
export const DEFAULT_FEE_RATE_POLICY: FeeRatePolicy = { floor: 1, cap: 500 };

// Weight units. Non-witness input: outpoint 36 + script length 1 + sequence 4 = 41 bytes (×4);
// witness: item count 1 + (1 + 73) signature + (1 + 33) public key = 109.
const INPUT_WEIGHT = 41 * 4 + 109;
// version 4 + locktime 4 (×4), segwit marker and flag 2 (×1).
const FIXED_WEIGHT = 8 * 4 + 2;

const varIntBytes = (n: number) => (n < 0xfd ? 1 : n <= 0xffff ? 3 : 5);

/** Virtual size (vB) of a transaction spending `inputs` P2WPKH coins to outputs of these kinds, signatures at their largest. */
export function estimateVsize(inputs: number, outputs: readonly OutputKind[]): number {
  const outputBytes = outputs.reduce((sum, kind) => sum + 8 + 1 + SCRIPT_BYTES[kind], 0);
  const weight = FIXED_WEIGHT + (varIntBytes(inputs) + varIntBytes(outputs.length) + outputBytes) * 4 + inputs * INPUT_WEIGHT;
  return Math.ceil(weight / 4);
}

/** The fee, in sats, of `vsize` vB at `rate` sat/vB (rounded up: never below the rate). */
export function feeFor(vsize: number, rate: number): bigint {
  return BigInt(Math.ceil(vsize * rate));
}

/** An agent's own fee rate: a 400 unless it is a number within the policy. */
export function checkRequestedFeeRate(rate: number, policy: FeeRatePolicy): number {
  if (typeof rate !== 'number' || !Number.isFinite(rate)) throw invalidField('fee_rate_sat_per_vbyte', 'must be a number (sat/vB)');
  if (rate < policy.floor) throw invalidField('fee_rate_sat_per_vbyte', `must be at least ${policy.floor} sat/vB (nodes do not relay less)`);
  if (rate > policy.cap) throw invalidField('fee_rate_sat_per_vbyte', `must be at most ${policy.cap} sat/vB (the service's fee-rate cap)`);
  // Three decimals are more precision than any fee market has.
  return Math.round(rate * 1000) / 1000;
}

/** The node's estimate (null: it has none, as on regtest) brought within the policy; `fallback` when there is none. */
export function effectiveFeeRate(estimate: number | null, fallback: number, policy: FeeRatePolicy): number {
  const rate = estimate === null || !Number.isFinite(estimate) || estimate <= 0 ? fallback : estimate;
  return Math.min(Math.max(Math.ceil(rate * 1000) / 1000, policy.floor), policy.cap);
}
