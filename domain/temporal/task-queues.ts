// Task queue names: the only place they are spelled. Workers poll these; starters target them.
export const TASK_QUEUES = {
  mail: 'vault-mail',
  accounts: 'vault-accounts',
} as const;
