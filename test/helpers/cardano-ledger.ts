// The in-memory Cardano ledger behind the local fake provider (cardano-node.ts): a UTxO set, a
// chain tip (height, slot) and a mempool. Every submitted transaction is DECODED with the chain's
// own library (@emurgo/cardano-serialization-lib-nodejs) and checked as the Shelley-era ledger
// rules would, with the node's own names for the failures:
//   - every vkey witness's signature verifies against the blake2b-256 body hash (InvalidWitnessesUTXOW),
//     and the witnesses cover every input address's payment key hash (MissingVKeyWitnessesUTXOW);
//   - every input exists and is unspent, also by the mempool (BadInputsUTxO);
//   - the TTL (invalid_hereafter) is set and the current slot is below it (OutsideValidityIntervalUTxO);
//   - every output holds at least the minimum UTxO for coins_per_utxo_byte (OutputTooSmallUTxO);
//   - the fee is at least min_fee_a × size + min_fee_b (FeeTooSmallUTxO);
//   - inputs = outputs + fee (ValueNotConservedUTxO); the size is within max_tx_size (MaxTxSizeUTxO).
// A refusal is a LedgerRefusal (the fake answers 400 with its message, as Blockfrost does).
import { randomBytes } from 'node:crypto';
import * as C from '@emurgo/cardano-serialization-lib-nodejs';

export const PARAMETERS = {
  min_fee_a: 44, min_fee_b: 155381, max_tx_size: 16384, max_val_size: '5000', key_deposit: '2000000', pool_deposit: '500000000',
  coins_per_utxo_size: '4310', coins_per_utxo_word: '4310', min_utxo: '4310', epoch: 100,
};

export class LedgerRefusal extends Error {
  constructor(rule: string, detail: string) {
    super(`transaction submit error ShelleyTxValidationError (ApplyTxError [${rule}]): ${detail}`);
    this.name = 'LedgerRefusal';
  }
}

export type Utxo = { txHash: string; index: number; address: string; lovelace: bigint; seq: number };
export type Landed = { hash: string; blockHeight: bigint; slot: bigint; fee: bigint; size: number };
type Pending = { hash: string; inputs: string[]; outputs: Utxo[]; ttl: bigint; fee: bigint; size: number };

const big = (n: bigint | number | string) => C.BigNum.from_str(n.toString());
const idOf = (txHash: string, index: number) => `${txHash}#${index}`;

/** The payment key hash (hex) of a Shelley address, or null (script credential, Byron …). */
function paymentKeyHash(address: C.Address): string | null {
  const cred = (C.BaseAddress.from_address(address) ?? C.EnterpriseAddress.from_address(address) ?? C.PointerAddress.from_address(address))?.payment_cred();
  return cred?.to_keyhash()?.to_hex() ?? null;
}

export class CardanoLedger {
  height = 1n;
  slot = 1000n;
  /** Submissions wait in the mempool until advance() (else each lands at once in its own block). */
  paused = false;
  readonly utxos = new Map<string, Utxo>();
  readonly landed = new Map<string, Landed>();
  readonly mempool: Pending[] = [];
  readonly refusals: string[] = [];
  readonly seenAddresses = new Set<string>();
  private seq = 0;

  /** A new UTxO of `lovelace` at `address` (from a faucet transaction that needs no inputs). */
  fund(address: string, lovelace: bigint): string {
    C.Address.from_bech32(address);
    const txHash = randomBytes(32).toString('hex');
    this.utxos.set(idOf(txHash, 0), { txHash, index: 0, address, lovelace, seq: this.seq++ });
    this.seenAddresses.add(address);
    return idOf(txHash, 0);
  }

  utxosOf(address: string): Utxo[] {
    return [...this.utxos.values()].filter((u) => u.address === address).sort((a, b) => a.seq - b.seq);
  }

  balance(address: string): bigint {
    return this.utxosOf(address).reduce((s, u) => s + u.lovelace, 0n);
  }

  /** Decodes, checks and takes a transaction (lands it at once unless paused); its hash, or a LedgerRefusal. */
  submit(bytes: Uint8Array): string {
    try {
      const pending = this.check(bytes);
      if (this.paused) {
        this.mempool.push(pending);
      } else {
        this.newBlock(1n);
        this.apply(pending);
      }
      return pending.hash;
    } catch (e) {
      if (e instanceof LedgerRefusal) this.refusals.push(e.message);
      throw e;
    }
  }

  /** Moves the tip `slots` ahead in one new block that takes the mempool's still valid transactions; the rest are dropped. */
  advance(slots: bigint): void {
    this.newBlock(slots);
    const waiting = this.mempool.splice(0);
    for (const p of waiting) {
      if (this.slot < p.ttl && p.inputs.every((i) => this.utxos.has(i))) this.apply(p);
    }
  }

  private newBlock(slots: bigint) {
    this.height += 1n;
    this.slot += slots;
  }

  private apply(p: Pending) {
    for (const i of p.inputs) this.utxos.delete(i);
    for (const o of p.outputs) {
      this.utxos.set(idOf(o.txHash, o.index), { ...o, seq: this.seq++ });
      this.seenAddresses.add(o.address);
    }
    this.landed.set(p.hash, { hash: p.hash, blockHeight: this.height, slot: this.slot, fee: p.fee, size: p.size });
  }

  private check(bytes: Uint8Array): Pending {
    let tx: C.FixedTransaction;
    try {
      tx = C.FixedTransaction.from_bytes(bytes);
    } catch {
      throw new LedgerRefusal('DeserialiseFailure', 'the bytes are not a Conway-era transaction');
    }
    const body = tx.body();
    const hash = tx.transaction_hash();
    const hashHex = hash.to_hex();
    if (this.landed.has(hashHex) || this.mempool.some((p) => p.hash === hashHex)) throw new LedgerRefusal('BadInputsUTxO', 'the inputs are already spent');
    if (bytes.length > PARAMETERS.max_tx_size) throw new LedgerRefusal('MaxTxSizeUTxO', `${bytes.length} > ${PARAMETERS.max_tx_size}`);

    // Witnesses: every signature valid over the body hash; the signers' key hashes.
    const signers = new Set<string>();
    const vkeys = tx.witness_set().vkeys();
    for (let i = 0; i < (vkeys?.len() ?? 0); i++) {
      const w = vkeys!.get(i);
      const key = w.vkey().public_key();
      if (!key.verify(hash.to_bytes(), w.signature())) throw new LedgerRefusal('InvalidWitnessesUTXOW', `the signature of ${key.to_hex()} does not verify over the body hash`);
      signers.add(key.hash().to_hex());
    }

    const ttl = body.ttl_bignum();
    if (ttl === undefined) throw new LedgerRefusal('OutsideValidityIntervalUTxO', 'the transaction has no TTL');
    const ttlSlot = BigInt(ttl.to_str());
    if (this.slot >= ttlSlot) throw new LedgerRefusal('OutsideValidityIntervalUTxO', `invalid_hereafter ${ttlSlot}, current slot ${this.slot}`);
    const start = body.validity_start_interval_bignum();
    if (start !== undefined && this.slot < BigInt(start.to_str())) throw new LedgerRefusal('OutsideValidityIntervalUTxO', 'not valid yet');
    if (body.certs() || body.withdrawals() || body.mint()) throw new LedgerRefusal('UnsupportedByThisFake', 'certificates, withdrawals and minting are not modelled');

    // Inputs: exist, unspent (also by the mempool), witnessed by their payment keys.
    const inputs = body.inputs();
    const spentByMempool = new Set(this.mempool.flatMap((p) => p.inputs));
    const ids: string[] = [];
    let inTotal = 0n;
    for (let i = 0; i < inputs.len(); i++) {
      const id = idOf(inputs.get(i).transaction_id().to_hex(), inputs.get(i).index());
      const utxo = this.utxos.get(id);
      if (!utxo || spentByMempool.has(id)) throw new LedgerRefusal('BadInputsUTxO', `${id} is not in the UTxO set`);
      const keyHash = paymentKeyHash(C.Address.from_bech32(utxo.address));
      if (keyHash === null) throw new LedgerRefusal('UnsupportedByThisFake', 'only key-locked inputs are modelled');
      if (!signers.has(keyHash)) throw new LedgerRefusal('MissingVKeyWitnessesUTXOW', `no witness for the key hash ${keyHash} of input ${id}`);
      ids.push(id);
      inTotal += utxo.lovelace;
    }
    if (ids.length === 0) throw new LedgerRefusal('InputSetEmptyUTxO', 'no inputs');

    // Outputs: ADA only, each at least the minimum UTxO.
    const outputs = body.outputs();
    const dataCost = C.DataCost.new_coins_per_byte(big(PARAMETERS.coins_per_utxo_size));
    const created: Utxo[] = [];
    let outTotal = 0n;
    for (let i = 0; i < outputs.len(); i++) {
      const o = outputs.get(i);
      if (o.amount().multiasset()) throw new LedgerRefusal('UnsupportedByThisFake', 'native assets are not modelled');
      const coin = BigInt(o.amount().coin().to_str());
      const min = BigInt(C.min_ada_for_output(o, dataCost).to_str());
      if (coin < min) throw new LedgerRefusal('OutputTooSmallUTxO', `output ${i} holds ${coin} lovelace, the minimum is ${min}`);
      created.push({ txHash: hashHex, index: i, address: o.address().to_bech32(undefined), lovelace: coin, seq: 0 });
      outTotal += coin;
    }

    const fee = BigInt(body.fee().to_str());
    const linear = C.LinearFee.new(big(PARAMETERS.min_fee_a), big(PARAMETERS.min_fee_b));
    const minFee = BigInt(C.min_fee(C.Transaction.from_bytes(bytes), linear).to_str());
    if (fee < minFee) throw new LedgerRefusal('FeeTooSmallUTxO', `fee ${fee} < minimum ${minFee}`);
    if (inTotal !== outTotal + fee) throw new LedgerRefusal('ValueNotConservedUTxO', `consumed ${inTotal}, produced ${outTotal + fee}`);
    return { hash: hashHex, inputs: ids, outputs: created, ttl: ttlSlot, fee, size: bytes.length };
  }
}
