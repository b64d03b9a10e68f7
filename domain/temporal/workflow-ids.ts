// Workflow ids derive from domain ids, so a retried request never starts a second workflow.
export const workflowIds = {
  mailDelivery: (mailId: string) => `mail-delivery:${mailId}`,
  accountDeletion: (userId: string) => `account-deletion:${userId}`,
};
