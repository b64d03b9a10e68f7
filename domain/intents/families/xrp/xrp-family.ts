// The XRP Ledger chain family (issue 33 §1): secp256k1 keys in the KMS (the same keys as EVM and
// Bitcoin), classic addresses, XRP Payments (drops; destination tag, memo) and transactions the
// agent provides (xrpl_tx_json), completed from the ledger (xrp-transfer.ts), signed once through
// the KMS callback (xrp-signing.ts), submitted, and followed until validated or past their
// LastLedgerSequence (xrp-tracking.ts). Sequences: see xrp-transfer.ts; each submitted
// transaction reserves its (account, sequence) in the statement that records it (`spends`).
import type { BroadcastVerdict, ChainFamily, FamilyNetwork, FamilySender, PayloadSigner, SignedTransfer, SpendContext, TransferIntent, TransferStatus } from '../chain-family.ts';
import { hashes } from 'xrpl';
import { XrpRpc } from './xrp-rpc.ts';
import { isXrpAddress, signXrplTransaction, xrpAddressOf, type XrplTxJson } from './xrp-signing.ts';
import { submitBlob, transactionStatus } from './xrp-tracking.ts';
import { buildPayment, completeProvided, sequenceKey } from './xrp-transfer.ts';

export class XrpFamily implements ChainFamily {
  readonly family = 'xrp' as const;
  readonly curve = 'secp256k1' as const;
  readonly unit = { symbol: 'XRP', decimals: 6, smallest: 'drop' };

  rpc(net: FamilyNetwork): XrpRpc {
    return new XrpRpc(net);
  }

  addressOf(publicKey: Uint8Array, _net: FamilyNetwork): string {
    return xrpAddressOf(publicKey);
  }

  /** Classic addresses are the same on every XRP Ledger network. */
  isAddress(address: string, _net: FamilyNetwork): boolean {
    return isXrpAddress(address);
  }

  async balance(net: FamilyNetwork, address: string): Promise<bigint> {
    return (await this.rpc(net).account(address, 'validated'))?.balance ?? 0n;
  }

  async signTransfer(net: FamilyNetwork, from: FamilySender, intent: TransferIntent, spend: SpendContext, sign: PayloadSigner): Promise<SignedTransfer> {
    const rpc = this.rpc(net);
    const provided = intent.xrplTxJson as XrplTxJson | undefined;
    const { tx, fee } = provided ? await completeProvided(rpc, from, provided, spend.reservedOutpoints)
      : await buildPayment(rpc, net, from, intent, spend.reservedOutpoints);
    const signed = await signXrplTransaction(tx, from, sign);
    const sequence = typeof tx.Sequence === 'number' ? tx.Sequence : null;
    return {
      raw: signed.blob, txHash: signed.hash, fee,
      spends: sequence !== null && sequence > 0 ? [sequenceKey(from.address, sequence)] : [],
      details: {
        transactionType: String(tx.TransactionType), sequence, lastLedgerSequence: typeof tx.LastLedgerSequence === 'number' ? tx.LastLedgerSequence : null,
        ...(typeof tx.DestinationTag === 'number' ? { destinationTag: tx.DestinationTag } : {}),
      },
    };
  }

  broadcast(net: FamilyNetwork, raw: string): Promise<BroadcastVerdict> {
    return submitBlob(this.rpc(net), raw, hashOfBlob(raw));
  }

  status(net: FamilyNetwork, txHash: string, details: SignedTransfer['details']): Promise<TransferStatus> {
    return transactionStatus(this.rpc(net), net, txHash, details);
  }
}

const hashOfBlob = (blob: string) => hashes.hashSignedTx(blob);
