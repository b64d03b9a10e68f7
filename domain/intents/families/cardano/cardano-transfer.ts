// An ADA transfer from the agent's enterprise address, built with the chain's own library
// (@emurgo/cardano-serialization-lib-nodejs) and signed once through the PayloadSigner (pure but
// for that call: the provider's facts come in). Rules the ledger enforces, applied before signing:
//   - every output holds at least the minimum UTxO (coins_per_utxo_byte × its size, as the
//     library computes it): a smaller `value` is a 400;
//   - the fee is the protocol's min_fee_a × size + min_fee_b, computed by the library's builder
//     with the witness's size counted;
//   - the change goes back to the agent's address; change below the minimum UTxO cannot exist,
//     so the builder leaves it to the fee — only when no further UTxO can lift it above;
//   - the TTL (invalid_hereafter) is the current slot plus the request's `ttl` seconds.
// UTxOs: largest first, only ADA-only ones (a UTxO carrying native tokens is never spent here, so
// tokens never move by accident), never those other open requests reserved.
// The vkey witness is the Ed25519 signature of the blake2b-256 hash of the body bytes.
import * as C from '@emurgo/cardano-serialization-lib-nodejs';
import { Problem, invalidField } from '../../../errors.ts';
import type { PayloadSigner } from '../chain-family.ts';
import { formatUnits } from '../units.ts';
import { keyHashOf } from './cardano-address.ts';
import type { CardanoUtxo, ProtocolParameters } from './cardano-provider.ts';

export const DEFAULT_MAX_INPUTS = 100;

export type CardanoTransferPlan = {
  utxos: readonly CardanoUtxo[];
  /** `txhash#index` of UTxOs other requests are spending now. */
  reserved: ReadonlySet<string>;
  params: ProtocolParameters;
  publicKey: Uint8Array;
  /** The agent's address (bech32): the change goes there. */
  from: string;
  to: C.Address;
  amount: bigint;
  /** The slot from which the transaction is invalid (invalid_hereafter). */
  ttlSlot: bigint;
  maxInputs?: number;
};

export type SignedCardanoTransfer = {
  /** The whole signed transaction, CBOR hex. */
  cborHex: string;
  /** blake2b-256 of the body, hex: the transaction id. */
  txHash: string;
  fee: bigint;
  change: bigint;
  inputs: string[];
};

export const utxoIdOf = (u: { txHash: string; index: number }) => `${u.txHash}#${u.index}`;
const big = (n: bigint) => C.BigNum.from_str(n.toString());
const ada = (lovelace: bigint) => `${formatUnits(lovelace, 6)} ADA`;

/** The library's builder configured from the protocol parameters. */
export function builderConfigOf(p: ProtocolParameters): C.TransactionBuilderConfig {
  return C.TransactionBuilderConfigBuilder.new()
    .fee_algo(C.LinearFee.new(big(p.minFeeA), big(p.minFeeB)))
    .coins_per_utxo_byte(big(p.coinsPerUtxoByte))
    .pool_deposit(big(p.poolDeposit))
    .key_deposit(big(p.keyDeposit))
    .max_value_size(p.maxValueSize)
    .max_tx_size(p.maxTxSize)
    .build();
}

/** The least lovelace an output to `to` holding only ADA may carry. */
export function minimumUtxo(to: C.Address, amount: bigint, coinsPerUtxoByte: bigint): bigint {
  const out = C.TransactionOutput.new(to, C.Value.new(big(amount)));
  return BigInt(C.min_ada_for_output(out, C.DataCost.new_coins_per_byte(big(coinsPerUtxoByte))).to_str());
}

type Built = { body: C.TransactionBody; change: bigint };

export async function signCardanoTransfer(plan: CardanoTransferPlan, sign: PayloadSigner): Promise<SignedCardanoTransfer> {
  const min = minimumUtxo(plan.to, plan.amount, plan.params.coinsPerUtxoByte);
  if (plan.amount < min) throw invalidField('value', `must be at least ${ada(min)}: a smaller output is below the ledger's minimum UTxO`);
  const built = select(plan);
  const fixed = C.FixedTransaction.new_from_body_bytes(built.body.to_bytes());
  const hash = fixed.transaction_hash();
  const signature = await sign(hash.to_bytes());
  if (signature.length !== 64) throw new Error('the KMS answered an Ed25519 signature that is not 64 bytes');
  fixed.add_vkey_witness(C.Vkeywitness.new(C.Vkey.new(C.PublicKey.from_bytes(plan.publicKey)), C.Ed25519Signature.from_bytes(signature)));
  const inputs = built.body.inputs();
  const ids: string[] = [];
  for (let i = 0; i < inputs.len(); i++) ids.push(`${inputs.get(i).transaction_id().to_hex()}#${inputs.get(i).index()}`);
  return { cborHex: fixed.to_hex(), txHash: hash.to_hex(), fee: BigInt(built.body.fee().to_str()), change: built.change, inputs: ids };
}

/** UTxOs largest first until the builder can pay the amount, the fee and a change output (or no UTxO is left to add). */
function select(plan: CardanoTransferPlan): Built {
  const maxInputs = plan.maxInputs ?? DEFAULT_MAX_INPUTS;
  const candidates = plan.utxos.filter((u) => !u.tokens && !plan.reserved.has(utxoIdOf(u)))
    .sort((a, b) => (a.lovelace !== b.lovelace ? (a.lovelace > b.lovelace ? -1 : 1) : utxoIdOf(a) < utxoIdOf(b) ? -1 : 1));
  const config = builderConfigOf(plan.params);
  const keyHash = keyHashOf(plan.publicKey);
  const change = C.Address.from_bech32(plan.from);
  let total = 0n;
  let withoutChange: Built | null = null;
  for (let n = 1; n <= Math.min(candidates.length, maxInputs); n++) {
    total += candidates[n - 1]!.lovelace;
    if (total < plan.amount + plan.params.minFeeB) continue;
    const b = C.TransactionBuilder.new(config);
    for (const u of candidates.slice(0, n)) b.add_key_input(keyHash, C.TransactionInput.new(C.TransactionHash.from_hex(u.txHash), u.index), C.Value.new(big(u.lovelace)));
    b.add_output(C.TransactionOutput.new(plan.to, C.Value.new(big(plan.amount))));
    b.set_ttl_bignum(big(plan.ttlSlot));
    let added: boolean;
    try {
      added = b.add_change_if_needed(change);
    } catch {
      continue; // not enough for the amount and the fee yet
    }
    const body = b.build();
    if (added) return { body, change: BigInt(body.outputs().get(1).amount().coin().to_str()) };
    withoutChange ??= { body, change: 0n };
  }
  if (withoutChange) return withoutChange;
  throw insufficientFunds(plan, candidates, maxInputs);
}

function insufficientFunds(plan: CardanoTransferPlan, candidates: CardanoUtxo[], maxInputs: number): Problem {
  const usable = candidates.slice(0, maxInputs).reduce((s, u) => s + u.lovelace, 0n);
  const reserved = plan.utxos.filter((u) => plan.reserved.has(utxoIdOf(u))).reduce((s, u) => s + u.lovelace, 0n);
  const withTokens = plan.utxos.filter((u) => u.tokens && !plan.reserved.has(utxoIdOf(u))).reduce((s, u) => s + u.lovelace, 0n);
  const aside = [
    reserved > 0n ? `${ada(reserved)} are being spent by other requests` : null,
    withTokens > 0n ? `${ada(withTokens)} sit in UTxOs holding native tokens, which are not spent here` : null,
    candidates.length > maxInputs ? `only the ${maxInputs} largest UTxOs are used in one transaction` : null,
  ].filter(Boolean).join('; ');
  return new Problem(422, `Not signed: the address's spendable UTxOs hold ${ada(usable)}, less than ${ada(plan.amount)} plus the fee${aside ? ` (${aside})` : ''}`, {
    type: 'insufficient_funds', title: 'Insufficient Funds',
    extras: { balance_lovelace: usable.toString(), amount_lovelace: plan.amount.toString(), reserved_lovelace: reserved.toString() },
  });
}
