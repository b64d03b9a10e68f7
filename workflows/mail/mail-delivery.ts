// Durable delivery of one outbox mail: retried with backoff; marked failed when retries end.
// The workflow carries the mail's id only: the activity reads and decrypts the body.
import { proxyActivities, type RetryPolicy } from '@temporalio/workflow';
import type { MailActivities } from '../../activities/mail.ts';

/** Production retry: about 40 minutes of attempts before the mail is marked failed. */
export const DELIVERY_RETRY: RetryPolicy = { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 };

/** Only tests pass options (short retries); the mail client starts the workflow with the id alone. */
export type MailDeliveryOptions = { retry?: RetryPolicy };

export async function mailDeliveryWorkflow(mailId: string, options: MailDeliveryOptions = {}): Promise<string> {
  const { deliverMail } = proxyActivities<MailActivities>({ startToCloseTimeout: '30 seconds', retry: options.retry ?? DELIVERY_RETRY });
  const { markMailFailed } = proxyActivities<MailActivities>({ startToCloseTimeout: '10 seconds' });
  try {
    return await deliverMail(mailId);
  } catch (e) {
    await markMailFailed(mailId);
    throw e;
  }
}
