// Every workflow the worker registers (the bundle's entry point), one folder per Temporal area.
// Code outside the workflow sandbox imports these as types only.
export { mailDeliveryWorkflow } from './mail/mail-delivery.ts';
export { accountDeletionWorkflow } from './accounts/account-deletion.ts';
export { webhookBatchWorkflow } from './webhooks/webhook-batch.ts';
export { automationRunWorkflow } from './automations/automation-run.ts';
export { automationScheduleTickWorkflow } from './automations/schedule-tick.ts';
export { shareAccessDigestWorkflow } from './shares/share-access-digest.ts';
export { vaultKeyRotationWorkflow } from './key-rotation/vault-key-rotation.ts';
export { cmekRotationWorkflow } from './key-rotation/cmek-rotation.ts';
export { transactionBroadcastWorkflow } from './transactions/transaction-broadcast.ts';
export { retentionPruneWorkflow } from './retention/retention-prune.ts';
export { treasuryTransferWorkflow } from './treasury/treasury-transfer.ts';
export { approvalWaitWorkflow } from './approvals/approval-wait.ts';
export { treasuryProposalExpiryWorkflow, treasuryExecutionWorkflow } from './treasury/safe-proposal.ts';
export { creditMaintenanceWorkflow } from './billing/credit-maintenance.ts';
export { x402SettleWorkflow } from './billing/x402-settle.ts';
export { platformBootstrapWorkflow } from './platform/bootstrap.ts';
