// The Bitcoin chain family (issue 32 §2): P2WPKH addresses of secp256k1 keys in the KMS; a
// transfer spends the agent's coins (minus those other requests are spending) to the destination
// with change back to the agent, RBF on, at the agent's fee rate or the node's estimate within the
// policy's floor and cap; every input is signed through the PayloadSigner. Broadcasting the same
// bytes again is harmless (the node already has them); a refusal is permanent when the node will
// never take these bytes. Node calls: bitcoin-node.ts (btcd with --txindex --addrindex).
import * as bitcoin from 'bitcoinjs-lib';
import { ChainRpcError } from '../../../chains/rpc-errors.ts';
import { Problem, invalidField } from '../../../errors.ts';
import type {
  BroadcastVerdict, ChainFamily, FamilyNetwork, FamilySender, PayloadSigner, SignedTransfer, SpendContext, TransferIntent, TransferStatus,
} from '../chain-family.ts';
import { bitcoinNetworkOf, destinationOf, p2wpkhAddress, p2wpkhScript } from './bitcoin-network.ts';
import { BitcoinNode } from './bitcoin-node.ts';
import { refusalKind } from './broadcast-refusals.ts';
import { outpointOf, selectCoins, DEFAULT_MAX_INPUTS, type Utxo } from './coin-selection.ts';
import { signTransfer as signBitcoinTransfer, type TransferOutput } from './signed-transaction.ts';
import { checkRequestedFeeRate, DEFAULT_FEE_RATE_POLICY, effectiveFeeRate, feeFor, type FeeRatePolicy } from './transaction-size.ts';

/** How long a node's fee-rate estimate is kept. */
const FEE_ESTIMATE_TTL_MS = 30_000;
/** How long an address's listed coins serve sign-only transfers (each coin is still checked unspent every time). */
const LISTING_TTL_MS = 5_000;
const LISTINGS_MAX = 10_000;

export type BitcoinFamilyOptions = {
  /** Floor and cap of the fee rate in sat/vB (default 1 and 500). */
  feeRate?: FeeRatePolicy;
  /** The rate when the node has no estimate (regtest, a young node). Default: the floor. */
  fallbackFeeRate?: number;
  /** Blocks within which the node's estimate aims to confirm. Default 6. */
  confirmationTarget?: number;
  /** Per node request. Default 10 s. */
  timeoutMs?: number;
  /** At most this many inputs per transaction. Default 500. */
  maxInputs?: number;
};

export class BitcoinFamily implements ChainFamily {
  readonly family = 'bitcoin' as const;
  readonly curve = 'secp256k1' as const;
  readonly unit = { symbol: 'BTC', decimals: 8, smallest: 'sat' };
  private readonly policy: FeeRatePolicy;
  private readonly fallbackFeeRate: number;
  private readonly target: number;
  private readonly timeoutMs: number | undefined;
  private readonly maxInputs: number;
  private readonly estimates = new Map<string, { at: number; rate: number | null }>();
  /** Sign-only's kept coin listings (history reads), by network, node and address. */
  private readonly listings = new Map<string, { at: number; unspent: Utxo[] }>();

  constructor(opts: BitcoinFamilyOptions = {}) {
    this.policy = opts.feeRate ?? DEFAULT_FEE_RATE_POLICY;
    if (!(this.policy.floor > 0 && this.policy.cap >= this.policy.floor)) throw new Error('Bitcoin fee-rate policy: need 0 < floor ≤ cap');
    this.fallbackFeeRate = opts.fallbackFeeRate ?? this.policy.floor;
    this.target = opts.confirmationTarget ?? 6;
    this.timeoutMs = opts.timeoutMs;
    this.maxInputs = opts.maxInputs ?? DEFAULT_MAX_INPUTS;
  }

  addressOf(publicKey: Uint8Array, net: FamilyNetwork): string {
    return p2wpkhAddress(publicKey, bitcoinNetworkOf(net.network));
  }

  isAddress(address: string, net: FamilyNetwork): boolean {
    return destinationOf(address, bitcoinNetworkOf(net.network)) !== null;
  }

  /**
   * The node's fee-rate estimate, kept FEE_ESTIMATE_TTL_MS per network and node: it moves with
   * blocks (minutes), and asking costs one or two RPCs per transfer (btcd answers each on a new
   * connection, and lacks estimatesmartfee).
   */
  private async estimate(net: FamilyNetwork, node: BitcoinNode): Promise<number | null> {
    const key = `${net.name} ${net.rpcUrl}`;
    const kept = this.estimates.get(key);
    if (kept && Date.now() - kept.at < FEE_ESTIMATE_TTL_MS) return kept.rate;
    const rate = await node.feeRateEstimate(this.target);
    if (this.estimates.size >= 64) this.estimates.clear();
    this.estimates.set(key, { at: Date.now(), rate });
    return rate;
  }

  async balance(net: FamilyNetwork, address: string): Promise<bigint> {
    const network = bitcoinNetworkOf(net.network);
    const ours = destinationOf(address, network);
    if (!ours) throw invalidField('address', `is not a Bitcoin address on ${net.name}`);
    return (await this.node(net).coins(address, ours.script)).confirmedBalance;
  }

  async signTransfer(net: FamilyNetwork, from: FamilySender, intent: TransferIntent, spend: SpendContext, sign: PayloadSigner): Promise<SignedTransfer> {
    const network = bitcoinNetworkOf(net.network);
    if (from.address !== p2wpkhAddress(from.publicKey, network)) throw new Error('The sender address is not the P2WPKH address of its public key');
    const to = destinationOf(intent.to, network);
    if (!to) throw invalidField('to', `is not a Bitcoin address on ${net.name} (P2WPKH, P2TR, P2WSH, P2SH or P2PKH of ${net.network})`);
    if (typeof intent.amount !== 'bigint' || intent.amount <= 0n) throw invalidField('value', 'must be more than zero');
    if (intent.tokenMint !== undefined) throw invalidField('token_mint', 'is not available on Bitcoin');
    const node = this.node(net);
    const requested = intent.feeRateSatPerVbyte;
    const senderScript = p2wpkhScript(from.publicKey);
    const listingKey = `${net.name} ${net.rpcUrl} ${from.address}`;
    const kept = spend.signOnly ? this.listings.get(listingKey) : undefined;
    const listed = kept && Date.now() - kept.at < LISTING_TTL_MS ? kept.unspent : null;
    // The two reads side by side: the estimate (kept a little while) and the sender's coins (for
    // sign-only, the listing of moments ago with each coin checked again: one batched gettxout).
    const [estimate, unspent] = await Promise.all([
      requested === undefined ? this.estimate(net, node) : Promise.resolve(null),
      listed ? node.stillUnspent(listed) : this.freshCoins(node, listingKey, from.address, senderScript),
    ]);
    const feeRate = requested !== undefined
      ? checkRequestedFeeRate(requested, this.policy)
      : effectiveFeeRate(estimate, this.fallbackFeeRate, this.policy);
    const select = (utxos: Utxo[]) => selectCoins({ utxos, reserved: spend.reservedOutpoints, amount: intent.amount, destination: to.kind, feeRate, maxInputs: this.maxInputs });
    let chosen: ReturnType<typeof selectCoins>;
    try {
      chosen = select(unspent);
    } catch (e) {
      // A kept listing misses coins received since: a refusal is only believed on a fresh one.
      if (!listed || !(e instanceof Problem)) throw e;
      chosen = select(await this.freshCoins(node, listingKey, from.address, senderScript));
    }
    const outputs: TransferOutput[] = [{ script: to.script, value: intent.amount }];
    if (chosen.change > 0n) outputs.push({ script: senderScript, value: chosen.change });
    const signed = await signBitcoinTransfer({ publicKey: from.publicKey, senderScript, inputs: chosen.inputs, outputs, network }, sign);
    // The estimate assumed the largest signatures: the real transaction is as big or smaller.
    if (signed.vsize > chosen.estimatedVsize || signed.fee < feeFor(signed.vsize, feeRate)) {
      throw new Error(`Bitcoin transaction of ${signed.vsize} vB came out above its estimate (${chosen.estimatedVsize} vB)`);
    }
    const spends = chosen.inputs.map(outpointOf);
    return {
      raw: signed.hex,
      txHash: signed.txid,
      fee: signed.fee,
      spends,
      details: {
        inputs: spends.join(','),
        change_sats: chosen.change.toString(),
        change_vout: chosen.change > 0n ? 1 : null,
        vsize: signed.vsize,
        fee_rate_sat_per_vbyte: feeRate,
        effective_fee_rate_sat_per_vbyte: Math.round((Number(signed.fee) / signed.vsize) * 1000) / 1000,
        fee_rate_source: requested !== undefined ? 'request' : estimate !== null ? 'node_estimate' : 'fallback',
        rbf: true,
      },
    };
  }

  /** The sender's coins read afresh (history, then the UTXO set); the listing is kept for sign-only. */
  private async freshCoins(node: BitcoinNode, listingKey: string, address: string, script: Uint8Array): Promise<Utxo[]> {
    const listed = await node.listedCoins(address, script);
    if (this.listings.size >= LISTINGS_MAX) this.listings.delete(this.listings.keys().next().value!);
    this.listings.set(listingKey, { at: Date.now(), unspent: listed.unspent });
    return node.stillUnspent(listed.unspent);
  }

  async broadcast(net: FamilyNetwork, raw: string): Promise<BroadcastVerdict> {
    let tx: bitcoin.Transaction;
    try {
      tx = bitcoin.Transaction.fromHex(raw);
    } catch {
      return { sent: false, permanent: true, reason: 'the signed bytes are not a Bitcoin transaction' };
    }
    const node = this.node(net);
    try {
      await node.sendRawTransaction(raw);
      return { sent: true };
    } catch (e) {
      if (!(e instanceof ChainRpcError)) throw e; // unreachable node: the caller retries
      const kind = refusalKind(e);
      if (kind === 'known') return { sent: true };
      if (kind === 'transient') return { sent: false, permanent: false, reason: e.message };
      // Mined already (all its outputs spent since), or held: the node knows the txid.
      if (kind === 'inputs' || kind === 'conflict') {
        if (await node.transaction(tx.getId())) return { sent: true };
        if (kind === 'inputs' && await this.parentMissing(node, tx)) {
          return { sent: false, permanent: false, reason: `${e.message} (a parent transaction is not known to the node yet)` };
        }
      }
      return { sent: false, permanent: true, reason: e.message };
    }
  }

  async status(net: FamilyNetwork, txHash: string, details: SignedTransfer['details']): Promise<TransferStatus> {
    const node = this.node(net);
    const seen = await node.transaction(txHash);
    if (seen === null) {
      const spentElsewhere = await this.inputSpentElsewhere(node, details);
      if (spentElsewhere === null) return { state: 'unknown' };
      // Mined between the two reads: then the spender is this very transaction.
      if (await node.transaction(txHash) !== null) return this.status(net, txHash, details);
      return { state: 'failed', reason: spentElsewhere, block: null };
    }
    if (seen.blockHash === null || seen.confirmations < 1) return { state: 'pending' };
    if (seen.confirmations < net.confirmations) return { state: 'pending' };
    return { state: 'confirmed', confirmations: seen.confirmations, block: await node.blockHeight(seen.blockHash) };
  }

  /** Whether an input's transaction is unknown to the node (its parent was not relayed yet, or was dropped). */
  private async parentMissing(node: BitcoinNode, tx: bitcoin.Transaction): Promise<boolean> {
    const parents = [...new Set(tx.ins.map((i) => Buffer.from(i.hash).reverse().toString('hex')))];
    for (const p of parents) if (await node.transaction(p) === null) return true;
    return false;
  }

  /** For a transaction the node does not know: which of its inputs a confirmed transaction has spent (a double spend), if any. */
  private async inputSpentElsewhere(node: BitcoinNode, details: SignedTransfer['details']): Promise<string | null> {
    const inputs = typeof details.inputs === 'string' && details.inputs !== '' ? details.inputs.split(',') : [];
    const outpoints = inputs.map((op) => {
      const [txid, vout] = op.split(':');
      return { txid: txid!, vout: Number(vout) };
    });
    if (outpoints.length === 0) return null;
    const outs = await node.txOuts(outpoints, false);
    for (let i = 0; i < outpoints.length; i++) {
      if (outs[i] !== null) continue;
      const parent = await node.transaction(outpoints[i]!.txid);
      // Gone from the UTXO set while its transaction is confirmed: a confirmed transaction spent it.
      if (parent && parent.blockHash !== null) return `input ${inputs[i]} was spent by another transaction`;
    }
    return null;
  }

  private node(net: FamilyNetwork): BitcoinNode {
    return new BitcoinNode({ chainId: net.chainId, name: net.name, rpcUrl: net.rpcUrl }, { timeoutMs: this.timeoutMs });
  }
}
