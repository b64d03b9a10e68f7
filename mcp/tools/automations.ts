// Automations: list_automations (an agent sees those bound to it) and trigger_automation.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { handler, jsonObjectArg, jsonResult, type ToolContext } from './tool-kit.ts';

export function registerAutomationTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool('list_automations', {
    title: 'List automations',
    description: 'List the automations bound to this agent: id, name, trigger, whether active, and recent run statistics. '
      + 'Use an id with trigger_automation.',
    inputSchema: {},
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, handler(ctx, 'list_automations', async () => jsonResult(await ctx.api.listAutomations())));

  server.registerTool('trigger_automation', {
    title: 'Run an automation now',
    description: 'Start a run of one of this agent\'s automations. Answers with the run (run_id, status); its steps continue in the background.',
    inputSchema: {
      automation_id: z.string().uuid().describe('The automation to run (from list_automations).'),
      input: jsonObjectArg().optional()
        .describe('A JSON object handed to the run; its steps read it as {{input.…}}, e.g. {"customer": "acme"}.'),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  }, handler(ctx, 'trigger_automation', async ({ automation_id, input }) => jsonResult(await ctx.api.triggerAutomation(automation_id, input))));
}
