// Which of the agent's coins pay for a transfer (pure: no node, no key). Confirmed coins first,
// largest first (fewest inputs, so the lowest fee), then the agent's own unconfirmed change; coins
// another request is spending (reserved outpoints), immature coinbase and unconfirmed coins from
// others are never picked. Change goes back to the agent unless it would be dust: then it is
// left to the fee. The fee is rate × vsize with signatures at their largest (transaction-size.ts).
import { invalidField, Problem } from '../../../errors.ts';
import type { OutputKind } from './bitcoin-network.ts';
import { DUST_LIMIT_SATS, estimateVsize, feeFor } from './transaction-size.ts';
import { formatBtc } from './btc-amount.ts';

/** One unspent output of the agent's address, as the node sees it (bitcoin-utxos.ts). */
export type Utxo = {
  txid: string;
  vout: number;
  value: bigint;
  /** 0 while the transaction paying it is in the mempool. */
  confirmations: number;
  /** A coinbase output: spendable after 100 confirmations. */
  coinbase: boolean;
  /** Unconfirmed change of the agent's own transaction (every input of it was the agent's): safe to spend on. */
  ownChange: boolean;
};

export type SelectionRequest = {
  utxos: readonly Utxo[];
  /** Outpoints (`txid:vout`) other requests are spending now. */
  reserved: ReadonlySet<string>;
  amount: bigint;
  destination: OutputKind;
  /** sat/vB, already within the policy. */
  feeRate: number;
  /** At most this many inputs (a standard transaction stays far below 100 kvB). */
  maxInputs?: number;
};

export type Selection = {
  inputs: Utxo[];
  /** 0n when the change was dust and went to the fee. */
  change: bigint;
  fee: bigint;
  /** The estimate (signatures at their largest) the fee was computed from. */
  estimatedVsize: number;
};

export const COINBASE_MATURITY = 100;
export const DEFAULT_MAX_INPUTS = 500;

export const outpointOf = (u: { txid: string; vout: number }) => `${u.txid}:${u.vout}`;

/** Whether a coin may be spent now by a new transaction (before reservations). */
export function isSpendable(u: Utxo): boolean {
  if (u.coinbase) return u.confirmations >= COINBASE_MATURITY;
  return u.confirmations > 0 || u.ownChange;
}

/** Confirmed (most confirmations is no criterion: largest value first), then own unconfirmed change, largest first. */
function preferenceOrder(a: Utxo, b: Utxo): number {
  const ca = a.confirmations > 0 ? 0 : 1;
  const cb = b.confirmations > 0 ? 0 : 1;
  if (ca !== cb) return ca - cb;
  if (a.value !== b.value) return a.value > b.value ? -1 : 1;
  return outpointOf(a) < outpointOf(b) ? -1 : outpointOf(a) > outpointOf(b) ? 1 : 0;
}

export function selectCoins(req: SelectionRequest): Selection {
  const dustOut = DUST_LIMIT_SATS[req.destination];
  if (req.amount < dustOut) {
    throw invalidField('value', `must be at least ${dustOut} sats (${formatBtc(dustOut)} BTC) for a ${req.destination} destination: smaller outputs are dust nodes refuse`);
  }
  const maxInputs = req.maxInputs ?? DEFAULT_MAX_INPUTS;
  const candidates = req.utxos.filter((u) => isSpendable(u) && !req.reserved.has(outpointOf(u))).sort(preferenceOrder);
  const changeDust = DUST_LIMIT_SATS.p2wpkh;
  const inputs: Utxo[] = [];
  let total = 0n;
  for (const u of candidates) {
    if (inputs.length === maxInputs) break;
    inputs.push(u);
    total += u.value;
    const withChange = estimateVsize(inputs.length, [req.destination, 'p2wpkh']);
    const feeWithChange = feeFor(withChange, req.feeRate);
    const change = total - req.amount - feeWithChange;
    if (change >= changeDust) return { inputs, change, fee: feeWithChange, estimatedVsize: withChange };
    const alone = estimateVsize(inputs.length, [req.destination]);
    if (total - req.amount >= feeFor(alone, req.feeRate)) {
      // No change output: what is left over (less than dust plus a change output's cost) pays the fee.
      return { inputs, change: 0n, fee: total - req.amount, estimatedVsize: alone };
    }
  }
  throw insufficientFunds(req, candidates, inputs.length === maxInputs && candidates.length > maxInputs);
}

function insufficientFunds(req: SelectionRequest, candidates: Utxo[], tooMany: boolean): Problem {
  const available = candidates.reduce((s, u) => s + u.value, 0n);
  const used = Math.min(Math.max(candidates.length, 1), req.maxInputs ?? DEFAULT_MAX_INPUTS);
  const required = req.amount + feeFor(estimateVsize(used, [req.destination]), req.feeRate);
  const reserved = req.utxos.filter((u) => req.reserved.has(outpointOf(u)));
  const reservedSats = reserved.reduce((s, u) => s + u.value, 0n);
  const unusable = req.utxos.filter((u) => !isSpendable(u) && !req.reserved.has(outpointOf(u))).reduce((s, u) => s + u.value, 0n);
  const why = tooMany ? `its ${req.maxInputs ?? DEFAULT_MAX_INPUTS} largest spendable coins hold` : 'its spendable coins hold';
  const aside = [
    reservedSats > 0n ? `${formatBtc(reservedSats)} BTC are being spent by other requests` : null,
    unusable > 0n ? `${formatBtc(unusable)} BTC are immature or unconfirmed` : null,
  ].filter(Boolean).join('; ');
  return new Problem(422, `Not signed: ${why} ${formatBtc(available)} BTC, less than the value plus the fee at ${req.feeRate} sat/vB (${formatBtc(required)} BTC)${aside ? ` (${aside})` : ''}`, {
    type: 'insufficient_funds', title: 'Insufficient Funds',
    extras: { balance_sats: available.toString(), required_sats: required.toString(), reserved_sats: reservedSats.toString(), unusable_sats: unusable.toString() },
  });
}
