// Sending a signed Tron transaction and following it (broadcast workflow steps, family-broadcaster.ts):
//   broadcast: /wallet/broadcasttransaction with the signed JSON. `result: true` or
//     DUP_TRANSACTION_ERROR (the node has it) is sent. A refusal the same bytes can never get past
//     (SIGERROR, CONTRACT_VALIDATE_ERROR — e.g. the balance —, CONTRACT_EXE_ERROR, TAPOS_ERROR,
//     TRANSACTION_EXPIRATION_ERROR, TOO_BIG_TRANSACTION_ERROR) is permanent — unless the chain
//     already holds the transaction (java-tron checks expiration before duplicates, so a resend of
//     a landed transaction reads "expired"): gettransactioninfobyid decides. Anything else
//     (SERVER_BUSY, NO_CONNECTION, BANDWITH_ERROR …) may pass later.
//   status: gettransactioninfobyid. In a block: failed when the node says FAILED or the receipt
//     result is not SUCCESS (REVERT, OUT_OF_ENERGY …; a TRX transfer's receipt has none), else
//     confirmed once the head is `confirmations` blocks on. In no block: pending until the head
//     block's time passes the transaction's expiration, then `expired`: the network can never
//     take those bytes; the family's onExpired 'fail' makes the workflow end the row failed
//     ("expired unseen"), and nothing is re-signed on its own.
import type { BroadcastVerdict, FamilyNetwork, SignedTransfer, TransferStatus } from '../chain-family.ts';
import type { TronHttp, TronTransactionJson } from './tron-http.ts';

const PERMANENT = new Set(['SIGERROR', 'CONTRACT_VALIDATE_ERROR', 'CONTRACT_EXE_ERROR', 'TAPOS_ERROR', 'TRANSACTION_EXPIRATION_ERROR', 'TOO_BIG_TRANSACTION_ERROR']);

export async function broadcastTransaction(node: TronHttp, raw: string): Promise<BroadcastVerdict> {
  const tx = JSON.parse(raw) as TronTransactionJson;
  const r = await node.broadcast(tx);
  if (r.ok || r.code === 'DUP_TRANSACTION_ERROR') return { sent: true };
  if (await node.transactionInfo(tx.txID)) return { sent: true };
  return { sent: false, permanent: PERMANENT.has(r.code), reason: `${r.code}${r.message ? `: ${r.message.slice(0, 300)}` : ''}` };
}

export async function transactionStatus(node: TronHttp, net: FamilyNetwork, txId: string, details: SignedTransfer['details']): Promise<TransferStatus> {
  const [info, head] = await Promise.all([node.transactionInfo(txId), node.nowBlock()]);
  if (info) {
    if (info.failed || (info.receiptResult !== null && info.receiptResult !== 'SUCCESS')) {
      const why = [info.receiptResult, info.message].filter((s) => s).join(': ') || 'FAILED';
      return { state: 'failed', reason: `The transaction failed on chain: ${why.slice(0, 300)}`, block: info.blockNumber };
    }
    const confirmations = Number(head.number - info.blockNumber + 1n);
    return confirmations >= net.confirmations ? { state: 'confirmed', confirmations, block: info.blockNumber } : { state: 'pending' };
  }
  const expiration = typeof details.expiration === 'number' ? details.expiration : null;
  if (expiration !== null && head.timestamp > expiration) return { state: 'expired' };
  return { state: 'pending' };
}
