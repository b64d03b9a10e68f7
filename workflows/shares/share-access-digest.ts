// The creator's mail about opens of one share, batched: each round waits one window, then one
// activity takes every open not yet mailed and sends one mail about them. After a mail it waits
// one more window, so opens arriving while it would be closing are caught by this run (their
// starts found it running); a round that finds none ends it. The history holds the share's
// internal id and counts only. Continued as new after MAX_ROUNDS, so a share opened without
// pause never grows one history without bound.
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { ShareActivities } from '../../activities/shares.ts';

export const MAX_ROUNDS = 50;

/** Returns how many opens this run mailed about (or marked, when there was no one to mail). */
export async function shareAccessDigestWorkflow(shareId: string, windowSeconds: number): Promise<number> {
  // Retries cover infrastructure only (the database, a killed worker); the take and the mail
  // commit together, so a retried round never mails twice.
  const { mailAccessDigest } = proxyActivities<ShareActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  let mailed = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    await sleep(windowSeconds * 1000);
    const taken = await mailAccessDigest(shareId);
    if (taken === 0) return mailed;
    mailed += taken;
  }
  return continueAsNew<typeof shareAccessDigestWorkflow>(shareId, windowSeconds);
}
