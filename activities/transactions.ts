// Activities of the transaction broadcast workflow: thin adapters over domain/intents/transactions/
// broadcaster.ts. The workflow passes a transaction id; the signed bytes are read here, never
// carried through Temporal history.
import type { Broadcaster, ReceiptOutcome, SendOutcome } from '../domain/intents/transactions/broadcaster.ts';

export function createTransactionActivities(deps: { broadcaster: Broadcaster }) {
  return {
    /** Sends the stored signed bytes; throws (and is retried) while the node cannot be reached. */
    sendTransaction: (txId: string): Promise<SendOutcome> => deps.broadcaster.send(txId),
    checkTransactionReceipt: (txId: string): Promise<ReceiptOutcome> => deps.broadcaster.receipt(txId),
    giveUpTransaction: (txId: string, why: string): Promise<void> => deps.broadcaster.giveUp(txId, why),
  };
}
export type TransactionActivities = ReturnType<typeof createTransactionActivities>;
