// The Intents API: the agent's key signs EVM transactions inside the vault and the agent never
// sees it. simulate_transaction runs one without signing; submit_transaction signs and
// broadcasts; sign_transaction signs only. The agent's guardrails and Intents API switch are
// the API's: a refusal comes back as its problem (a guardrail names itself in `guardrail`).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { defined, handler, jsonResult, type ToolContext } from './tool-kit.ts';

const quantity = (what: string) => z.union([z.string(), z.number().int().nonnegative()]).optional()
  .describe(`${what}: an integer, as a number or decimal or 0x-hex text.`);

const simulateShape = {
  chain: z.union([z.string().min(1), z.number().int().positive()]).describe('The chain by name (e.g. "ethereum", "base") or chain id.'),
  to: z.string().describe('The recipient or contract: a 0x-hex address.'),
  value: z.union([z.string(), z.number().nonnegative()]).describe('Amount of the native coin in whole units as decimal text, e.g. "0.25" (ETH), or 0x-hex wei. "0" for a pure contract call.'),
  data: z.string().optional().describe('Calldata as 0x-hex bytes, for a contract call.'),
  signing_key_path: z.string().max(512).optional().describe('Which of the agent\'s keys signs, when it has more than one.'),
  gas_limit: quantity('Gas limit; estimated when left out'),
};

const submitShape = {
  ...simulateShape,
  nonce: z.number().int().nonnegative().optional().describe('Nonce; the next free one when left out.'),
  gas_price: quantity('Legacy gas price in wei (asks for a legacy transaction)'),
  max_fee_per_gas: quantity('EIP-1559 max fee per gas in wei'),
  max_priority_fee_per_gas: quantity('EIP-1559 priority fee per gas in wei'),
  simulate_first: z.boolean().optional().describe('Simulate before signing and stop if it would revert (default true here).'),
  idempotency_key: z.string().min(1).max(200).optional()
    .describe('Names this transaction: sending the same key again returns the first result instead of paying twice. A fresh one is made when left out.'),
};

type Submit = { [K in keyof typeof submitShape]?: unknown } & { idempotency_key?: string; simulate_first?: boolean };

/** The request body: the arguments less the idempotency key, simulating first unless told not to. */
function body(a: Submit): Record<string, unknown> {
  const { idempotency_key: _key, ...rest } = a;
  return defined({ ...rest, simulate_first: a.simulate_first ?? true });
}

const SPENDS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } as const;

export function registerTransactionTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool('simulate_transaction', {
    title: 'Simulate a transaction',
    description: 'Run a transaction from the agent\'s address against the chain without signing it: status (success, reverted, error), '
      + 'gas used, balance changes and any revert reason. Needs the agent\'s Intents API to be on.',
    inputSchema: simulateShape,
    annotations: { readOnlyHint: true, openWorldHint: true },
  }, handler(ctx, 'simulate_transaction', async (a) =>
    jsonResult(await ctx.api.simulateTransaction(await ctx.auth.agentId(), defined({ ...a })))));

  server.registerTool('submit_transaction', {
    title: 'Send a transaction',
    description: 'Sign a transaction with the agent\'s key (held in the vault) and broadcast it. Spends real funds: be sure the user wants it. '
      + 'The agent\'s guardrails (allowed chains and recipients, per-transaction and daily limits) apply. Answers with the transaction '
      + '(id, tx_hash, status signed → broadcast → confirmed).',
    inputSchema: submitShape,
    annotations: SPENDS,
  }, handler(ctx, 'submit_transaction', async (a) =>
    jsonResult(await ctx.api.submitTransaction(await ctx.auth.agentId(), body(a), a.idempotency_key ?? randomUUID()))));

  server.registerTool('sign_transaction', {
    title: 'Sign a transaction without sending it',
    description: 'Sign a transaction with the agent\'s key and return the signed bytes (signed_tx, tx_hash) without broadcasting. '
      + 'The guardrails apply and it counts towards the daily limits.',
    inputSchema: submitShape,
    annotations: SPENDS,
  }, handler(ctx, 'sign_transaction', async (a) =>
    jsonResult(await ctx.api.signTransaction(await ctx.auth.agentId(), body(a), a.idempotency_key ?? randomUUID()))));
}
