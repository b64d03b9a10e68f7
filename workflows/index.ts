// Every workflow the worker registers. Only @temporalio/workflow and type-only imports here.
export { mailDeliveryWorkflow } from './mail-delivery.ts';
export { accountDeletionWorkflow } from './account-deletion.ts';
