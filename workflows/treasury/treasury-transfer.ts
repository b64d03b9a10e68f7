// One treasury transfer's way onto the chain (`treasury-transfer:<transfer id>`): send the stored
// bytes (retried with backoff while the node cannot be reached), then poll for the receipt,
// sending the same bytes again now and then in case a node dropped them. It ends when the row is
// confirmed or failed, or after MAX_WAIT without a receipt (the row then says so). Its only input
// is the transfer id; the bytes stay in Postgres.
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { TreasuryActivities } from '../../activities/treasury-wallets.ts';

const MAX_WAIT_MS = 24 * 3600_000;
const FIRST_POLL_MS = 1_000;
const MAX_POLL_MS = 30_000;
const RESEND_EVERY_MS = 60_000;
const POLLS_PER_RUN = 500;

type State = { startedAt: number; pollMs: number; sentAt: number };

const acts = proxyActivities<TreasuryActivities>({
  startToCloseTimeout: '60 seconds',
  // Unlimited attempts: an unreachable node is retried until it answers (or MAX_WAIT ends the workflow).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export async function treasuryTransferWorkflow(transferId: string, state?: State): Promise<string> {
  let s: State = state ?? { startedAt: Date.now(), pollMs: FIRST_POLL_MS, sentAt: 0 };
  if (!state) {
    const sent = await acts.sendTreasuryTransfer(transferId);
    if (sent !== 'sent') return sent;
    s = { ...s, sentAt: Date.now() };
  }
  for (let i = 0; i < POLLS_PER_RUN; i++) {
    const r = await acts.checkTreasuryTransferReceipt(transferId);
    if (r !== 'pending') return r;
    if (Date.now() - s.startedAt > MAX_WAIT_MS) {
      await acts.giveUpTreasuryTransfer(transferId, 'No receipt within 24 hours of the broadcast; it may still be mined if a node keeps it');
      return 'unconfirmed';
    }
    await sleep(s.pollMs);
    s = { ...s, pollMs: Math.min(Math.round(s.pollMs * 1.5), MAX_POLL_MS) };
    if (Date.now() - s.sentAt > RESEND_EVERY_MS) {
      const again = await acts.sendTreasuryTransfer(transferId);
      if (again !== 'sent') return again;
      s = { ...s, sentAt: Date.now() };
    }
  }
  return continueAsNew<typeof treasuryTransferWorkflow>(transferId, s);
}
