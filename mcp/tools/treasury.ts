// Safe multisig treasuries (reference facts §22): an agent with approved access proposes a
// transaction from the treasury's Safe (treasury_propose), signs proposals as one of its signers
// (treasury_sign_proposal: the service signs with the agent's provisioned key) and lists them
// (treasury_list_proposals). Argument names follow the reference's MCP tools. No tool moves money:
// an agent's proposal waits for a human in the approval queue, and humans execute.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { defined, handler, jsonResult, type ToolContext } from './tool-kit.ts';

const treasuryId = z.string().uuid().describe('The treasury (a Safe the organization registered under /v1/treasury), by id.');
const proposalId = z.string().uuid().describe('The proposal, by the id treasury_propose or treasury_list_proposals answered with.');

/** The reference's proposal statuses (a cancelled proposal, or one whose execution failed, is rejected). */
const PROPOSAL_STATUSES = ['pending', 'approved', 'executing', 'executed', 'rejected', 'expired'] as const;

const proposeShape = {
  treasury_id: treasuryId,
  to: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-hex address').describe('The recipient or contract the Safe calls: a 0x-hex address.'),
  value_wei: z.string().regex(/^[0-9]{1,78}$/, 'must be a decimal integer').describe('Amount of the native coin in wei, as decimal text, e.g. "1000000000000000000" for 1 ETH; "0" for a pure contract call.'),
  data: z.string().regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-hex bytes').optional().describe('Calldata as 0x-hex bytes, for a contract call.'),
  operation: z.union([z.literal(0), z.literal(1)]).optional().describe('0 Call (the default; the only one the service proposes: 1 DelegateCall is refused).'),
  safe_tx_hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-hex 32-byte hash').optional()
    .describe('The SafeTx hash you computed, as a check: refused unless it is what the service computes. Leave out to let the service compute it.'),
  nonce: z.number().int().nonnegative().optional().describe('The Safe nonce you expect, as a check: refused when the Safe\'s nonce is another. Leave out to use the current one.'),
  reason: z.string().min(1).max(2000).optional().describe('One sentence of why, shown to the human who approves the proposal in the approval queue.'),
};

export function registerTreasuryTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool('treasury_propose', {
    title: 'Propose a treasury transaction',
    description: 'Propose a transaction from an organization treasury\'s Safe multisig (needs this agent\'s approved treasury access). '
      + 'Answers with the proposal: id, safe_tx_hash (what signers sign), nonce, status (pending) and approval_id. Nothing is sent yet: '
      + 'the proposal waits in the approval queue until a human approves it (follow it with get_approval_status and approval_id), '
      + 'it needs the signatures of the Safe\'s threshold of signers (treasury_sign_proposal), and a human executes it.',
    inputSchema: proposeShape,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  }, handler(ctx, 'treasury_propose', async ({ treasury_id, ...a }) =>
    jsonResult(await ctx.api.proposeTreasuryTransaction(treasury_id, defined({ ...a })))));

  server.registerTool('treasury_sign_proposal', {
    title: 'Sign a treasury proposal',
    description: 'Approve or reject a pending treasury proposal as one of the Safe\'s signers. Leave out signature: the service signs the '
      + 'SafeTx with this agent\'s provisioned key (its signer address). Answers with the proposal and its signatures; its status becomes '
      + 'approved once approvals reach the threshold (it is not executed: a human executes it).',
    inputSchema: {
      treasury_id: treasuryId,
      proposal_id: proposalId,
      decision: z.enum(['approve', 'reject']).default('approve').describe('approve (the default) or reject.'),
      signature: z.string().min(1).max(200).optional()
        .describe('A 65-byte EIP-712 signature of the SafeTx made elsewhere. Leave out: the service signs with this agent\'s key.'),
      signer_address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-hex address').optional()
        .describe('Your signer address on the treasury, as a check: refused when it is another.'),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }, handler(ctx, 'treasury_sign_proposal', async ({ treasury_id, proposal_id, ...a }) =>
    jsonResult(await ctx.api.signTreasuryProposal(treasury_id, proposal_id, defined({ ...a })))));

  server.registerTool('treasury_list_proposals', {
    title: 'List treasury proposals',
    description: 'A treasury\'s proposals, newest first, each with its to address, value_wei, safe_tx_hash, nonce, status, threshold, '
      + 'approval_id and signatures.',
    inputSchema: {
      treasury_id: treasuryId,
      status: z.enum(PROPOSAL_STATUSES).optional().describe('Only proposals in this state: pending, approved, executing, executed, rejected or expired.'),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, handler(ctx, 'treasury_list_proposals', async ({ treasury_id, status }) =>
    jsonResult(await ctx.api.listTreasuryProposals(treasury_id, { status }))));
}
