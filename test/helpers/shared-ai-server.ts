// The test stack's default model provider (started once by global-setup.ts, which points
// AI_PROVIDER, AI_BASE_URL, AI_API_KEY, AI_MODEL and AI_PRICES at it). Test files reach the same
// object through the main context's global, as with the swap aggregator. Its default answer is a
// valid automation draft, so a request that reaches it unscripted (route fuzzing) gets a 200.
import vm from 'node:vm';
import type { FakeAiServer, AiReply } from './fake-ai-server.ts';

export const STACK_AI_KEY = 'sk-stack-operator-key-0123456789abcdef';
export const STACK_AI_MODEL = 'fake-gpt';
/** Cents per million tokens: 0.1 cent per input token, 0.2 cent per output token. */
export const STACK_AI_PRICES = { 'fake-gpt': { input: 100_000, output: 200_000 }, 'fake-claude': { input: 300_000, output: 600_000 } };

export const VALID_DRAFT = {
  name: 'Fake draft', trigger_type: 'manual', cron_expr: null,
  workflow_spec: { steps: [{ type: 'log', message: 'hello from the fake model' }] },
  reply: 'A fake draft.',
};
export const DEFAULT_STACK_REPLY: AiReply = { text: JSON.stringify(VALID_DRAFT) };

const KEY = Symbol.for('ocv-vault.test.ai-server');
const mainGlobal = () => vm.runInThisContext('globalThis') as Record<symbol, FakeAiServer | undefined>;

export function shareAiServer(fake: FakeAiServer): void {
  mainGlobal()[KEY] = fake;
}

export function sharedAiServer(): FakeAiServer {
  const fake = mainGlobal()[KEY];
  if (!fake) throw new Error('the fake model provider is started by test/helpers/global-setup.ts');
  return fake;
}
