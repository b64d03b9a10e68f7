// Sending signed XRP bytes and following them to a validated ledger (issue 33 §1). `submit`'s
// preliminary result decides the send: applied or queued (tes, terQUEUED) and claimed-fee results
// (tec: in the ledger, failed) count as sent; a server that already has the transaction (the same
// bytes sent again) too; ter* (e.g. terPRE_SEQ, waiting for a lower sequence) is "not yet", the
// workflow sends again; tef/tem/tel are refusals for good unless the ledger already has our hash.
// Status: `tx` until validated — tesSUCCESS confirmed, anything else failed (the Fee was claimed);
// unknown once a validated ledger is past LastLedgerSequence: failed, as the ledger can never take
// it. The validated index is read before `tx`, so a transaction validated in between is seen.
import type { BroadcastVerdict, FamilyNetwork, SignedTransfer, TransferStatus } from '../chain-family.ts';
import type { XrpRpc } from './xrp-rpc.ts';

export async function submitBlob(rpc: XrpRpc, blob: string, hash: string): Promise<BroadcastVerdict> {
  const { engineResult, message } = await rpc.submit(blob);
  if (engineResult === 'tesSUCCESS' || engineResult === 'terQUEUED' || engineResult.startsWith('tec')) return { sent: true };
  if (engineResult.startsWith('ter')) return { sent: false, permanent: false, reason: `${engineResult}: ${message}` };
  if (await rpc.tx(hash) !== null) return { sent: true };
  // tefPAST_SEQ, tefMAX_LEDGER, tem* (malformed), tel* (this server will not relay it)
  return { sent: false, permanent: !engineResult.startsWith('tel'), reason: `${engineResult}: ${message}` };
}

export async function transactionStatus(rpc: XrpRpc, _net: FamilyNetwork, hash: string, details: SignedTransfer['details']): Promise<TransferStatus> {
  const validated = await rpc.validatedLedger();
  const found = await rpc.tx(hash);
  if (found?.validated) {
    const block = found.ledgerIndex === null ? null : BigInt(found.ledgerIndex);
    if (found.result === 'tesSUCCESS') return { state: 'confirmed', confirmations: 1, block };
    return { state: 'failed', reason: `The ledger applied it with ${found.result ?? 'an unknown result'} (the fee was claimed)`, block };
  }
  if (found) return { state: 'pending' };
  const lls = typeof details.lastLedgerSequence === 'number' ? details.lastLedgerSequence : null;
  if (lls !== null && validated > lls) {
    return { state: 'failed', reason: `Not validated by its LastLedgerSequence ${lls} (validated ledger ${validated}): it can never be; not re-signed`, block: null, neverOnChain: true };
  }
  return { state: found === null ? 'unknown' : 'pending' };
}
