// Workflow tests against the real Temporal dev server (no mocks of Temporal): one server and one
// bundle of workflows/index.ts for all of them; each area's cases live in <area>.cases.ts.
import { startHarness, type Harness } from './harness.ts';
import { mailDeliveryTests } from './mail-delivery.cases.ts';
import { accountDeletionTests } from './account-deletion.cases.ts';
import { webhookBatchTests } from './webhook-batch.cases.ts';
import { replayTests } from './replay.cases.ts';
import { automationRunTests } from './automation-run.cases.ts';
import { retentionPruneTests } from './retention-prune.cases.ts';
import { safeProposalTests } from './safe-proposal.cases.ts';

let harness: Harness | undefined;
const h = () => harness!;

beforeAll(async () => { harness = await startHarness(); }, 120_000);
afterAll(async () => { await harness?.stop(); });

describe('mail delivery workflow', () => mailDeliveryTests(h));
describe('account deletion workflow', () => accountDeletionTests(h));
describe('webhook batch workflow', () => webhookBatchTests(h));
describe('automation run workflow', () => automationRunTests(h));
describe('retention prune workflow', () => retentionPruneTests(h));
describe('Safe treasury proposal workflows', () => safeProposalTests(h));
describe('replay of recorded histories', () => replayTests(h));
