// Activities of the Safe treasury workflows (workflows/treasury/safe-proposal.ts): thin adapters
// over domain/treasury/safe/execution.ts. The workflows pass a proposal id; everything else is
// read here.
import type { TemporalArea } from './temporal-area.ts';
import { SafeExecutor, type PrepareOutcome, type SettleOutcome } from '../domain/treasury/safe/execution.ts';
import { SafeChain } from '../domain/treasury/safe/safe-chain.ts';
import { SAFE_TREASURY_TASK_QUEUE, SafeTreasuryClient } from '../domain/treasury/safe/client.ts';
import { openProposalsOlderThan } from '../domain/treasury/safe/proposal-repository.ts';
import { AgentSigner } from '../domain/intents/signing-keys/signer.ts';
import { TransactionsClient } from '../domain/intents/transactions/client.ts';

export function createTreasuryActivities(deps: { executor: SafeExecutor }) {
  return {
    /** Records the proposal's execTransaction row once (a repeat returns the same row). */
    prepareExecution: (proposalId: string): Promise<PrepareOutcome> => deps.executor.prepare(proposalId),
    startExecutionBroadcast: (proposalId: string): Promise<void> => deps.executor.broadcast(proposalId),
    settleExecution: (proposalId: string): Promise<SettleOutcome> => deps.executor.settle(proposalId),
    proposalExpiryDue: (proposalId: string): Promise<number | null> => deps.executor.expiryOf(proposalId),
    expireProposal: (proposalId: string): Promise<number | null> => deps.executor.expire(proposalId),
  };
}
export type TreasuryActivities = ReturnType<typeof createTreasuryActivities>;

export const safeTreasuryArea: TemporalArea = {
  taskQueue: SAFE_TREASURY_TASK_QUEUE,
  activities: (d) => createTreasuryActivities({
    executor: new SafeExecutor({
      em: d.em, rpc: d.chainRpc, safe: new SafeChain(d.chainRpc), signer: new AgentSigner({ db: d.em, kms: d.kms }),
      transactions: new TransactionsClient(d.temporal, d.log),
    }),
  }),
  // An open proposal whose workflow could not be started at request time gets it now (a no-op if running).
  async redrive(d, olderThan) {
    const client = new SafeTreasuryClient(d.temporal, d.log);
    for (const p of await openProposalsOlderThan(d.em(), olderThan)) {
      if (p.status === 'executing') await client.startExecution({ id: p.id, orgId: p.org_id });
      else await client.startExpiry({ id: p.id, orgId: p.org_id });
    }
  },
};
