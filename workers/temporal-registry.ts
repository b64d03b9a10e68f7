// Every Temporal area the worker runs, in one list. An area declares itself (task queue,
// activities, re-drive) at the end of activities/<area>.ts; its starter and workflow ids are
// domain/<area>/client.ts and its workflow code workflows/<area>/ (listed in workflows/index.ts).
import type { TemporalArea } from '../activities/temporal-area.ts';
import { mailArea } from '../activities/mail.ts';
import { accountsArea } from '../activities/accounts.ts';
import { webhooksArea } from '../activities/webhooks.ts';
import { automationsArea } from '../activities/automations.ts';
import { sharesArea } from '../activities/shares.ts';
import { keyRotationArea } from '../activities/key-rotation.ts';
import { transactionsArea } from '../activities/transactions.ts';
import { retentionArea } from '../activities/retention.ts';
import { treasuryArea } from '../activities/treasury-wallets.ts';
import { approvalsArea } from '../activities/approvals.ts';
import { safeTreasuryArea } from '../activities/treasury.ts';
import { billingArea } from '../activities/billing.ts';
import { platformArea } from '../activities/platform.ts';

export type { TemporalArea, WorkerDeps } from '../activities/temporal-area.ts';

export const TEMPORAL_AREAS: readonly TemporalArea[] = [
  mailArea, accountsArea, webhooksArea, automationsArea, sharesArea, keyRotationArea, transactionsArea, treasuryArea, safeTreasuryArea, approvalsArea, platformArea,
  // Last: their sweeps only keep the daily Schedules in place.
  billingArea, retentionArea,
];
