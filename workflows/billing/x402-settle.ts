// Retries an x402 settlement that failed while its request was served (domain/billing/
// x402-payments.ts). The payer's authorization is valid for the payment's timeout (a minute by
// default), so retries are quick and few; a payment still unsettled after them stays
// `settle_failed` in x402_payments for the operator. The history carries the digest only.
import { proxyActivities } from '@temporalio/workflow';
import type { BillingActivities } from '../../activities/billing.ts';

export async function x402SettleWorkflow(digest: string): Promise<'settled' | 'gone'> {
  const { settleX402Payment } = proxyActivities<BillingActivities>({
    startToCloseTimeout: '90 seconds',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '20 seconds', maximumAttempts: 8 },
  });
  return settleX402Payment(digest);
}
