// One treasury transfer's way onto the chain (`treasury-transfer:<transfer id>`): the same loop as
// the agents' transactions (workflows/transactions/broadcast-loop.ts) over the transfer's row. Its
// only input is the transfer id; the bytes stay in Postgres.
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { TreasuryActivities } from '../../activities/treasury-wallets.ts';
import { broadcastLoop, type BroadcastState } from '../transactions/broadcast-loop.ts';

const acts = proxyActivities<TreasuryActivities>({
  startToCloseTimeout: '60 seconds',
  // Unlimited attempts: an unreachable node is retried until it answers (or MAX_WAIT ends the workflow).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export async function treasuryTransferWorkflow(transferId: string, state?: BroadcastState): Promise<string> {
  const r = await broadcastLoop({
    send: () => acts.sendTreasuryTransfer(transferId),
    receipt: () => acts.checkTreasuryTransferReceipt(transferId),
    giveUp: (reason) => acts.giveUpTreasuryTransfer(transferId, reason),
  }, state);
  return 'done' in r ? r.done : continueAsNew<typeof treasuryTransferWorkflow>(transferId, r.next);
}
