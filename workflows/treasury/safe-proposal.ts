// A Safe treasury proposal's two durable pieces of work (domain/treasury/safe/client.ts starts them):
//   treasuryProposalExpiryWorkflow (`treasury-proposal-expiry:<id>`): a timer to the proposal's
//     expires_at, then pending|approved → expired (the activity checks the row, so a proposal
//     executed or cancelled meanwhile stays as it is).
//   treasuryExecutionWorkflow (`treasury-exec:<id>`): the execTransaction row is recorded once
//     (prepare), its broadcast workflow `tx:<row id>` started, and the row followed until it is
//     confirmed (the proposal executed) or failed. Only the proposal id is carried in history.
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { TreasuryActivities } from '../../activities/treasury.ts';

const acts = proxyActivities<TreasuryActivities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

const FIRST_POLL_MS = 500;
const MAX_POLL_MS = 15_000;
const POLLS_PER_RUN = 500;

export async function treasuryProposalExpiryWorkflow(proposalId: string): Promise<string> {
  for (;;) {
    const due = await acts.proposalExpiryDue(proposalId);
    if (due === null) return 'closed';
    const wait = due - Date.now();
    if (wait > 0) {
      await sleep(wait);
      continue;
    }
    const next = await acts.expireProposal(proposalId);
    if (next === null) return 'expired';
    // The database's clock does not see it due yet: look again shortly.
    await sleep(1_000);
  }
}

export async function treasuryExecutionWorkflow(proposalId: string, polling = false): Promise<string> {
  if (!polling) {
    const prepared = await acts.prepareExecution(proposalId);
    if ('ended' in prepared) return prepared.ended;
    await acts.startExecutionBroadcast(proposalId);
  }
  let pollMs = FIRST_POLL_MS;
  for (let i = 0; i < POLLS_PER_RUN; i++) {
    const outcome = await acts.settleExecution(proposalId);
    if (outcome !== 'executing') return outcome;
    await sleep(pollMs);
    pollMs = Math.min(Math.round(pollMs * 1.5), MAX_POLL_MS);
  }
  return continueAsNew<typeof treasuryExecutionWorkflow>(proposalId, true);
}
