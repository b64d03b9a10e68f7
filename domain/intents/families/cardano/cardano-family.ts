// The Cardano chain family (issue 33 §2): enterprise addresses of Ed25519 keys in the KMS (HSM
// with pkcs11); an ADA transfer spends the agent's UTxOs (minus those other requests are
// spending) to the destination with change back to the agent, the fee from the protocol
// parameters and a TTL (current slot + the request's `ttl` seconds, default 2 hours), and carries
// one vkey witness signed through the PayloadSigner (cardano-transfer.ts). Provider calls:
// cardano-provider.ts (Blockfrost's REST shape). Broadcasting the same bytes again is harmless:
// a transaction already on chain counts as sent; a refusal that our own earlier submission could
// explain (its inputs look spent) is left to the TTL, after which the transaction that never
// landed ends failed and gives back what it reserved.
import * as C from '@emurgo/cardano-serialization-lib-nodejs';
import { ChainRpcError } from '../../../chains/rpc-errors.ts';
import { invalidField } from '../../../errors.ts';
import type {
  BroadcastVerdict, ChainFamily, FamilyNetwork, FamilySender, PayloadSigner, SignedTransfer, SpendContext, TransferIntent, TransferStatus,
} from '../chain-family.ts';
import { destinationOf, enterpriseAddress } from './cardano-address.ts';
import { CardanoProvider, type ProtocolParameters } from './cardano-provider.ts';
import { DEFAULT_MAX_INPUTS, signCardanoTransfer } from './cardano-transfer.ts';

/** Seconds (= slots since Shelley) a transaction stays valid when the request names no `ttl`. */
export const DEFAULT_TTL_SECONDS = 7200;
/** The most a request's `ttl` may be (a day): the reservations of a transaction that never lands last until it passes. */
export const MAX_TTL_SECONDS = 86_400;
/** Protocol parameters change at epoch boundaries (5 days on mainnet): kept this long per network. */
const PARAMETERS_TTL_MS = 60_000;
/** Refusals that our own earlier submission of these bytes explains (its inputs are spent in the mempool). */
const MAYBE_OURS = /BadInputsUTxO|ValueNotConservedUTxO|already|mempool/i;

export type CardanoFamilyOptions = { timeoutMs?: number; maxInputs?: number; defaultTtlSeconds?: number };

export class CardanoFamily implements ChainFamily {
  readonly family = 'cardano' as const;
  readonly curve = 'ed25519' as const;
  readonly unit = { symbol: 'ADA', decimals: 6, smallest: 'lovelace' };
  private readonly timeoutMs: number | undefined;
  private readonly maxInputs: number;
  private readonly defaultTtl: number;
  private readonly parameterCache = new Map<string, { at: number; params: ProtocolParameters }>();

  constructor(opts: CardanoFamilyOptions = {}) {
    this.timeoutMs = opts.timeoutMs;
    this.maxInputs = opts.maxInputs ?? DEFAULT_MAX_INPUTS;
    this.defaultTtl = opts.defaultTtlSeconds ?? DEFAULT_TTL_SECONDS;
  }

  addressOf(publicKey: Uint8Array, net: FamilyNetwork): string {
    return enterpriseAddress(publicKey, net.network);
  }

  isAddress(address: string, net: FamilyNetwork): boolean {
    return destinationOf(address, net.network) !== null;
  }

  async balance(net: FamilyNetwork, address: string): Promise<bigint> {
    if (!destinationOf(address, net.network)) throw invalidField('address', `is not a Cardano address on ${net.name}`);
    const utxos = await this.provider(net).utxos(address);
    return utxos.reduce((s, u) => s + u.lovelace, 0n);
  }

  async signTransfer(net: FamilyNetwork, from: FamilySender, intent: TransferIntent, spend: SpendContext, sign: PayloadSigner): Promise<SignedTransfer> {
    if (from.address !== enterpriseAddress(from.publicKey, net.network)) throw new Error('The sender address is not the enterprise address of its public key');
    const to = destinationOf(intent.to, net.network);
    if (!to) throw invalidField('to', `is not a Cardano payment address on ${net.name} (bech32 ${net.network === 'mainnet' ? 'addr1' : 'addr_test1'}…)`);
    if (typeof intent.amount !== 'bigint' || intent.amount <= 0n) throw invalidField('value', 'must be more than zero');
    if (intent.tokenMint !== undefined) throw invalidField('token_mint', 'is not available on Cardano');
    const ttlSeconds = intent.ttlSeconds ?? this.defaultTtl;
    if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TTL_SECONDS) throw invalidField('ttl', `must be 1 to ${MAX_TTL_SECONDS} seconds`);
    const provider = this.provider(net);
    const [params, tip, utxos] = await Promise.all([this.parameters(net, provider), provider.tip(), provider.utxos(from.address)]);
    const ttlSlot = tip.slot + BigInt(ttlSeconds);
    const signed = await signCardanoTransfer({
      utxos, reserved: spend.reservedOutpoints, params, publicKey: from.publicKey, from: from.address, to, amount: intent.amount, ttlSlot, maxInputs: this.maxInputs,
    }, sign);
    return {
      raw: signed.cborHex,
      txHash: signed.txHash,
      fee: signed.fee,
      spends: signed.inputs,
      details: { inputs: signed.inputs.join(','), change_lovelace: signed.change.toString(), ttl_slot: Number(ttlSlot), ttl_seconds: ttlSeconds },
    };
  }

  async broadcast(net: FamilyNetwork, raw: string): Promise<BroadcastVerdict> {
    let tx: C.FixedTransaction;
    try {
      tx = C.FixedTransaction.from_hex(raw);
    } catch {
      return { sent: false, permanent: true, reason: 'the signed bytes are not a Cardano transaction' };
    }
    const provider = this.provider(net);
    try {
      await provider.submit(tx.to_bytes());
      return { sent: true };
    } catch (e) {
      if (!(e instanceof ChainRpcError)) throw e; // unreachable provider: the caller retries
      if (await provider.transaction(tx.transaction_hash().to_hex())) return { sent: true };
      // Possibly our own earlier submission sitting in the mempool: the TTL decides (status).
      if (MAYBE_OURS.test(e.message)) return { sent: false, permanent: false, reason: e.message };
      return { sent: false, permanent: true, reason: e.message };
    }
  }

  async status(net: FamilyNetwork, txHash: string, details: SignedTransfer['details']): Promise<TransferStatus> {
    const provider = this.provider(net);
    // The tip first: a block that includes the transaction after this read has a slot past the tip's.
    const tip = await provider.tip();
    const seen = await provider.transaction(txHash);
    if (seen) {
      const confirmations = tip.height >= seen.blockHeight ? Number(tip.height - seen.blockHeight) + 1 : 1;
      if (confirmations < net.confirmations) return { state: 'pending' };
      return { state: 'confirmed', confirmations, block: seen.blockHeight };
    }
    const ttl = typeof details.ttl_slot === 'number' ? BigInt(details.ttl_slot) : null;
    if (ttl !== null && tip.slot >= ttl) {
      return { state: 'failed', reason: `its TTL (slot ${ttl}) passed at slot ${tip.slot} without the transaction on chain: it can never land`, block: null, neverOnChain: true };
    }
    return { state: 'pending' };
  }

  private async parameters(net: FamilyNetwork, provider: CardanoProvider): Promise<ProtocolParameters> {
    const key = `${net.name} ${net.rpcUrl}`;
    const kept = this.parameterCache.get(key);
    if (kept && Date.now() - kept.at < PARAMETERS_TTL_MS) return kept.params;
    const params = await provider.parameters();
    if (this.parameterCache.size >= 64) this.parameterCache.clear();
    this.parameterCache.set(key, { at: Date.now(), params });
    return params;
  }

  private provider(net: FamilyNetwork): CardanoProvider {
    return new CardanoProvider({ chainId: net.chainId, name: net.name, rpcUrl: net.rpcUrl }, { timeoutMs: this.timeoutMs });
  }
}
