// Activities of the treasury transfer workflow: thin adapters over
// domain/treasury/wallets/transfer-broadcaster.ts. The workflow passes a transfer id; the signed
// bytes are read here, never carried through Temporal history.
import { TransferBroadcaster, type TransferReceiptOutcome, type TransferSendOutcome } from '../domain/treasury/wallets/transfer-broadcaster.ts';
import { TREASURY_TASK_QUEUE, TreasuryTransfersClient } from '../domain/treasury/wallets/client.ts';
import { WalletFamilies } from '../domain/treasury/wallets/families.ts';
import { ChainFamilies } from '../domain/intents/families/family-registry.ts';
import { openTransfersOlderThan } from '../domain/treasury/wallets/transfer-repository.ts';
import type { TemporalArea } from './temporal-area.ts';

export function createTreasuryActivities(deps: { broadcaster: TransferBroadcaster }) {
  return {
    /** Sends the stored signed bytes; throws (and is retried) while the node cannot be reached. */
    sendTreasuryTransfer: (id: string): Promise<TransferSendOutcome> => deps.broadcaster.send(id),
    checkTreasuryTransferReceipt: (id: string): Promise<TransferReceiptOutcome> => deps.broadcaster.receipt(id),
    giveUpTreasuryTransfer: (id: string, why: string): Promise<void> => deps.broadcaster.giveUp(id, why),
  };
}
export type TreasuryActivities = ReturnType<typeof createTreasuryActivities>;

export const treasuryArea: TemporalArea = {
  taskQueue: TREASURY_TASK_QUEUE,
  activities: (d) => createTreasuryActivities({ broadcaster: new TransferBroadcaster(d.em, new WalletFamilies(d.chainRpc, new ChainFamilies({ rpcOverrides: d.rpcOverrides }))) }),
  // A signed transfer whose workflow could not be started at request time gets it now (a no-op if running).
  async redrive(d, olderThan) {
    const client = new TreasuryTransfersClient(d.temporal, d.log);
    for (const t of await openTransfersOlderThan(d.em(), olderThan)) await client.startBroadcast({ id: t.id, orgId: t.org_id });
  },
};
