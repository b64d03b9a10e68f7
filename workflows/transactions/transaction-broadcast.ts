// One signed transaction's way onto the chain (`tx:<transaction id>`): broadcast-loop.ts sends the
// stored bytes, follows them to a receipt and resends them now and then. Its only input is the
// transaction id; the bytes stay in Postgres.
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { TransactionActivities } from '../../activities/transactions.ts';
import { broadcastLoop, type BroadcastState } from './broadcast-loop.ts';

const acts = proxyActivities<TransactionActivities>({
  // A call to the node times out after 10 s; a send may first wait for its sender's lower nonces
  // to go out (broadcaster.ts). A worker killed mid-send is retried after this.
  startToCloseTimeout: '60 seconds',
  // Unlimited attempts: an unreachable node is retried until it answers (or MAX_WAIT ends the workflow).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export async function transactionBroadcastWorkflow(txId: string, state?: BroadcastState): Promise<string> {
  const r = await broadcastLoop({
    send: () => acts.sendTransaction(txId),
    receipt: () => acts.checkTransactionReceipt(txId),
    giveUp: (reason) => acts.giveUpTransaction(txId, reason),
  }, state);
  return 'done' in r ? r.done : continueAsNew<typeof transactionBroadcastWorkflow>(txId, r.next);
}
