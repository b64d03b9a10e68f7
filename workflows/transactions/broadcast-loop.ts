// The way stored signed bytes go onto a chain, shared by the agents' transactions
// (transaction-broadcast.ts) and the treasury wallets' transfers (treasury/treasury-transfer.ts):
// send (the activity retries with backoff while the node cannot be reached), then poll for the
// receipt, sending the same bytes again now and then in case a node dropped them from its pool.
// It ends when the row is confirmed or failed, or after MAX_WAIT without a receipt (the row then
// says so); after POLLS_PER_RUN polls its caller continues as new with the state it returns.
import { sleep } from '@temporalio/workflow';

/** How long a broadcast is followed before the record gives up on it. */
const MAX_WAIT_MS = 24 * 3600_000;
const FIRST_POLL_MS = 1_000;
const MAX_POLL_MS = 30_000;
/** The same bytes are sent again after this long without a receipt. */
const RESEND_EVERY_MS = 60_000;
/** Polls per run before continuing as new, so the history stays short. */
const POLLS_PER_RUN = 500;

export type BroadcastState = { startedAt: number; pollMs: number; sentAt: number };

/** The activities of one broadcast, bound to its row. */
export type BroadcastSteps = {
  send(): Promise<string>;
  receipt(): Promise<string>;
  giveUp(reason: string): Promise<unknown>;
};

/** The workflow's result, or the state to continue as new with. */
export async function broadcastLoop(steps: BroadcastSteps, state?: BroadcastState): Promise<{ done: string } | { next: BroadcastState }> {
  let s: BroadcastState = state ?? { startedAt: Date.now(), pollMs: FIRST_POLL_MS, sentAt: 0 };
  if (!state) {
    const sent = await steps.send();
    if (sent !== 'sent') return { done: sent };
    s = { ...s, sentAt: Date.now() };
  }
  for (let i = 0; i < POLLS_PER_RUN; i++) {
    const r = await steps.receipt();
    if (r !== 'pending') return { done: r };
    if (Date.now() - s.startedAt > MAX_WAIT_MS) {
      await steps.giveUp('No receipt within 24 hours of the broadcast; it may still be mined if a node keeps it');
      return { done: 'unconfirmed' };
    }
    await sleep(s.pollMs);
    s = { ...s, pollMs: Math.min(Math.round(s.pollMs * 1.5), MAX_POLL_MS) };
    if (Date.now() - s.sentAt > RESEND_EVERY_MS) {
      const again = await steps.send();
      if (again !== 'sent') return { done: again };
      s = { ...s, sentAt: Date.now() };
    }
  }
  return { next: s };
}
