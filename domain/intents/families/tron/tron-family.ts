// The Tron chain family (issue 33 §3): secp256k1 keys (the KMS's, as EVM and Bitcoin), base58check
// T… addresses, TRX transfers (sun) and TRC-20 transfers (`token_mint` = the token contract's
// address, base units of the token) built on the node's reference block and signed once through
// the KMS (tron-transfer.ts, tron-signing.ts), broadcast and followed by transaction info until
// confirmed, failed, or expired unseen (then failed: tron-tracking.ts). Amounts are sun (TRX, 6
// decimals) or the token's base units. No coins to reserve: Tron orders nothing by a nonce or an
// outpoint, and a transaction's id differs by its timestamp, so parallel transfers never clash.
import type { BroadcastVerdict, ChainFamily, FamilyNetwork, FamilySender, PayloadSigner, SignedTransfer, SpendContext, TransferIntent, TransferStatus } from '../chain-family.ts';
import { TRX_DECIMALS, isTronAddress, tronAddressOf } from './tron-address.ts';
import { TronHttp, type TronHttpOptions } from './tron-http.ts';
import { signTransaction } from './tron-signing.ts';
import { broadcastTransaction, transactionStatus } from './tron-tracking.ts';
import { buildTrc20Transfer, buildTrxTransfer } from './tron-transfer.ts';

export class TronFamily implements ChainFamily {
  readonly family = 'tron' as const;
  readonly curve = 'secp256k1' as const;
  readonly unit = { symbol: 'TRX', decimals: TRX_DECIMALS, smallest: 'sun' };
  /** A Tron transaction past its expiration is never signed again on its own. */
  readonly onExpired = 'fail' as const;
  private readonly options: TronHttpOptions;

  constructor(opts: TronHttpOptions = {}) {
    this.options = opts;
  }

  node(net: FamilyNetwork): TronHttp {
    return new TronHttp(net, this.options);
  }

  /** The same address on every Tron network. */
  addressOf(publicKey: Uint8Array, _net: FamilyNetwork): string {
    return tronAddressOf(publicKey);
  }

  isAddress(address: string, _net: FamilyNetwork): boolean {
    return isTronAddress(address);
  }

  balance(net: FamilyNetwork, address: string): Promise<bigint> {
    return this.node(net).balance(address);
  }

  async signTransfer(net: FamilyNetwork, from: FamilySender, intent: TransferIntent, _spend: SpendContext, sign: PayloadSigner): Promise<SignedTransfer> {
    const node = this.node(net);
    const unsigned = intent.tokenMint === undefined ? await buildTrxTransfer(node, net, from, intent) : await buildTrc20Transfer(node, net, from, intent);
    const signed = await signTransaction(unsigned.tx, from, sign);
    // The fee is known once the transaction is in a block (bandwidth, or energy up to fee_limit): 0 until then.
    return { raw: JSON.stringify(signed), txHash: signed.txID, fee: 0n, spends: [], details: unsigned.details };
  }

  broadcast(net: FamilyNetwork, raw: string): Promise<BroadcastVerdict> {
    return broadcastTransaction(this.node(net), raw);
  }

  status(net: FamilyNetwork, txHash: string, details: SignedTransfer['details']): Promise<TransferStatus> {
    return transactionStatus(this.node(net), net, txHash, details);
  }
}
