// Durable delivery of one outbox mail: retried with backoff; marked failed when retries end.
import { proxyActivities } from '@temporalio/workflow';
import type { MailActivities } from '../activities/mail.ts';

const { deliverMail } = proxyActivities<MailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});
const { markMailFailed } = proxyActivities<MailActivities>({ startToCloseTimeout: '10 seconds' });

export async function mailDeliveryWorkflow(mailId: string): Promise<string> {
  try {
    return await deliverMail(mailId);
  } catch (e) {
    await markMailFailed(mailId);
    throw e;
  }
}
