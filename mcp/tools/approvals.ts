// Human-in-the-loop approvals: an agent asks its human before a sensitive step
// (request_approval), then polls (get_approval_status). Listing is for humans: an agent's
// list_approvals comes back as the API's 403.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { defined, handler, jsonObjectArg, jsonResult, type ToolContext } from './tool-kit.ts';

export function registerApprovalTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool('request_approval', {
    title: 'Ask a human for approval',
    description: 'Ask the agent\'s human to approve an action before doing it. Answers with the pending approval (id, status, expires_at; '
      + 'it expires after 24 hours); poll it with get_approval_status and go ahead only once its status is approved.',
    inputSchema: {
      action: z.string().min(1).max(100).describe('What you want to do, e.g. "rotate_secret" or "policy_change".'),
      target_type: z.string().min(1).max(100).describe('The kind of thing it acts on, e.g. "secret" or "vault".'),
      target_id: z.string().min(1).max(256).describe('Which one, e.g. the secret path or the vault id.'),
      summary: jsonObjectArg().describe('A JSON object the human reads to decide, e.g. {"why": "the key leaked in a log", "path": "api-keys/openai"}.'),
      reason: z.string().max(2000).optional().describe('One sentence of why, shown with the request.'),
      declared_risk_tier: z.number().int().min(1).max(3).optional().describe('How risky you judge it: 1 low (default), 2 medium, 3 high.'),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  }, handler(ctx, 'request_approval', async (a) => jsonResult(await ctx.api.requestApproval(defined({ ...a })))));

  server.registerTool('list_approvals', {
    title: 'List approvals',
    description: 'The organization\'s approval requests, newest first (for people; the API refuses agents, who follow their own requests with get_approval_status).',
    inputSchema: {
      status: z.enum(['pending', 'approved', 'rejected', 'expired']).optional().describe('Only approvals in this state.'),
      limit: z.number().int().min(1).max(100).optional().describe('At most this many (default 20).'),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, handler(ctx, 'list_approvals', async ({ status, limit }) => jsonResult(await ctx.api.listApprovals({ status, limit: limit ?? 20 }))));

  server.registerTool('get_approval_status', {
    title: 'Check an approval',
    description: 'The status of an approval this agent requested: pending, approved, rejected or expired, and when it expires.',
    inputSchema: { approval_id: z.string().uuid().describe('The id request_approval answered with.') },
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, handler(ctx, 'get_approval_status', async ({ approval_id }) => jsonResult({ approval_id, ...await ctx.api.approvalStatus(approval_id) })));
}
