// A deliberately non-deterministic edit of the mail-delivery workflow (a timer before the
// delivery): replaying a recorded history against it must fail, which proves the replay test
// would catch such an edit of the real workflow.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { MailActivities } from '../../../activities/mail.ts';

const { deliverMail } = proxyActivities<MailActivities>({ startToCloseTimeout: '30 seconds' });

export async function mailDeliveryWorkflow(mailId: string): Promise<string> {
  await sleep('1 second');
  return deliverMail(mailId);
}
