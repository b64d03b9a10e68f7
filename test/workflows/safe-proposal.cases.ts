// The Safe treasury workflows with swapped activities: an execution prepares once, starts the
// broadcast once and polls until the proposal settles; an execution whose prepare ends stops
// there; the expiry timer waits until the proposal is due, then expires it, or ends when the
// proposal closed meanwhile.
import { randomUUID } from 'node:crypto';
import type { treasuryExecutionWorkflow, treasuryProposalExpiryWorkflow } from '../../workflows/treasury/safe-proposal.ts';
import type { PrepareOutcome, SettleOutcome } from '../../domain/treasury/safe/execution.ts';
import { freshQueue, withWorker, type Harness } from './harness.ts';

export function safeProposalTests(h: () => Harness): void {
  test('execution: prepared once, broadcast started once, polled until executed', async () => {
    const q = freshQueue('safe-exec');
    const calls: string[] = [];
    const settles: SettleOutcome[] = ['executing', 'executing', 'executed'];
    const activities = {
      async prepareExecution(id: string): Promise<PrepareOutcome> { calls.push(`prepare:${id}`); return { transactionId: 'tx-1' }; },
      async startExecutionBroadcast(id: string) { calls.push(`broadcast:${id}`); },
      async settleExecution(id: string): Promise<SettleOutcome> { calls.push(`settle:${id}`); return settles.shift()!; },
      async proposalExpiryDue() { return null; },
      async expireProposal() { return null; },
    };
    const out = await withWorker(h(), q, activities, () => h().env.client.workflow.execute<typeof treasuryExecutionWorkflow>(
      'treasuryExecutionWorkflow', { taskQueue: q, workflowId: `test-safe-exec-${randomUUID()}`, args: ['p1'] }));
    expect(out).toBe('executed');
    expect(calls).toEqual(['prepare:p1', 'broadcast:p1', 'settle:p1', 'settle:p1', 'settle:p1']);
  });

  test('execution: a prepare that ends (the Safe would revert, the proposal closed) sends nothing', async () => {
    const q = freshQueue('safe-exec-end');
    const calls: string[] = [];
    const activities = {
      async prepareExecution(): Promise<PrepareOutcome> { calls.push('prepare'); return { ended: 'failed' }; },
      async startExecutionBroadcast() { calls.push('broadcast'); },
      async settleExecution(): Promise<SettleOutcome> { calls.push('settle'); return 'executed'; },
      async proposalExpiryDue() { return null; },
      async expireProposal() { return null; },
    };
    const out = await withWorker(h(), q, activities, () => h().env.client.workflow.execute<typeof treasuryExecutionWorkflow>(
      'treasuryExecutionWorkflow', { taskQueue: q, workflowId: `test-safe-exec-${randomUUID()}`, args: ['p2'] }));
    expect(out).toBe('failed');
    expect(calls).toEqual(['prepare']);
  });

  test('expiry: waits for the due time, then expires; a proposal closed meanwhile just ends the timer', async () => {
    const q = freshQueue('safe-expiry');
    let asked = 0;
    const expired: string[] = [];
    // Due 500 ms after the open proposal is first asked about, however late a busy machine starts the workflow.
    let due: number | null = null;
    const activities = {
      async prepareExecution(): Promise<PrepareOutcome> { return { ended: 'x' }; },
      async startExecutionBroadcast() {},
      async settleExecution(): Promise<SettleOutcome> { return 'ended'; },
      async proposalExpiryDue(id: string) {
        asked++;
        if (id === 'closed') return null;
        due ??= Date.now() + 500;
        return due;
      },
      async expireProposal(id: string) { expired.push(id); return null; },
    };
    const [open, closed] = await withWorker(h(), q, activities, () => Promise.all(['open', 'closed'].map((id) =>
      h().env.client.workflow.execute<typeof treasuryProposalExpiryWorkflow>(
        'treasuryProposalExpiryWorkflow', { taskQueue: q, workflowId: `test-safe-expiry-${randomUUID()}`, args: [id] }))));
    expect(open).toBe('expired');
    expect(closed).toBe('closed');
    expect(expired).toEqual(['open']);
    expect(asked).toBeGreaterThanOrEqual(3); // open: before and after its timer; closed: once
  });
}
