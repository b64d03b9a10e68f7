// Activities of the transaction broadcast workflow: thin adapters over domain/intents/transactions/
// broadcaster.ts. The workflow passes a transaction id; the signed bytes are read here, never
// carried through Temporal history.
import { Broadcaster, type ReceiptOutcome, type SendOutcome } from '../domain/intents/transactions/broadcaster.ts';
import type { TemporalArea } from './temporal-area.ts';
import { TRANSACTIONS_TASK_QUEUE, TransactionsClient } from '../domain/intents/transactions/client.ts';
import { NonceGaps } from '../domain/intents/transactions/nonce-gap.ts';
import { AgentSigner } from '../domain/intents/signing-keys/signer.ts';
import { FamilyBroadcaster } from '../domain/intents/families/family-broadcaster.ts';
import { ChainFamilies } from '../domain/intents/families/family-registry.ts';
import { openTransactionsOlderThan } from '../domain/intents/transactions/transaction-repository.ts';

export function createTransactionActivities(deps: { broadcaster: Broadcaster }) {
  return {
    /** Sends the stored signed bytes; throws (and is retried) while the node cannot be reached. */
    sendTransaction: (txId: string): Promise<SendOutcome> => deps.broadcaster.send(txId),
    checkTransactionReceipt: (txId: string): Promise<ReceiptOutcome> => deps.broadcaster.receipt(txId),
    giveUpTransaction: (txId: string, why: string): Promise<void> => deps.broadcaster.giveUp(txId, why),
  };
}
export type TransactionActivities = ReturnType<typeof createTransactionActivities>;

export const transactionsArea: TemporalArea = {
  taskQueue: TRANSACTIONS_TASK_QUEUE,
  activities: (d) => createTransactionActivities({
    broadcaster: new Broadcaster(d.em, d.chainRpc, new NonceGaps({ em: d.em, rpc: d.chainRpc, signer: new AgentSigner({ db: d.em, kms: d.kms }) }),
      new FamilyBroadcaster({ em: d.em, kms: d.kms, families: new ChainFamilies({ rpcOverrides: d.rpcOverrides }) })),
  }),
  // A signed transaction whose workflow could not be started at request time gets it now (a no-op if running).
  async redrive(d, olderThan) {
    const client = new TransactionsClient(d.temporal, d.log);
    for (const t of await openTransactionsOlderThan(d.em(), olderThan)) await client.startBroadcast({ id: t.id, orgId: t.org_id, agentId: t.agent_id });
  },
};
