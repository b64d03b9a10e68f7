// Once per test run: a fake SMTP server, then the real stack via the dev launcher.
import fs from 'node:fs';
import path from 'node:path';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { startFakeSmtp } from './fake-smtp.ts';
import { freePort, makeDataDir, spawnEntry, stopGroup, waitFor, type StackInfo } from './stack.ts';
import { createSoftHsmToken } from './softhsm.ts';
import { shareSwapAggregator, SWAP_API_KEY } from './shared-swap-aggregator.ts';
import { startFakeSwapAggregator } from './fake-swap-aggregator.ts';
import { startFakeAiServer } from './fake-ai-server.ts';
import { DEFAULT_STACK_REPLY, shareAiServer, STACK_AI_KEY, STACK_AI_MODEL, STACK_AI_PRICES } from './shared-ai-server.ts';
import { STACK_WEBAUTHN } from './software-authenticator.ts';
import { startStripeMock } from './stripe-mock.ts';

/** TEST_KMS_BACKEND=pkcs11 runs the stack with a fresh SoftHSM2 token instead of the local key backend. */
function kmsEnv(dataDir: string): Record<string, string> {
  if (process.env.TEST_KMS_BACKEND !== 'pkcs11') return { KMS_BACKEND: 'local' };
  const token = createSoftHsmToken(path.join(dataDir, 'softhsm'));
  // For tests that open the stack's own token, as others read DATA_DIR/root.key (signing-keys.test.ts).
  process.env.TEST_PKCS11_TOKEN = JSON.stringify({ modulePath: token.modulePath, tokenLabel: token.tokenLabel, pin: token.pin });
  return { ...token.env, KMS_BACKEND: 'pkcs11', PKCS11_MODULE: token.modulePath, PKCS11_TOKEN_LABEL: token.tokenLabel, PKCS11_PIN: token.pin };
}

/**
 * Google sign-in on, as a deployment would have it, with a key nobody holds: the route then
 * answers every body as a configured one does (fuzz-bodies.test.ts: never a 5xx). Every request
 * here comes from 127.0.0.1, whose rejected tokens the fuzzing throttles, so
 * google-sign-in.test.ts signs in through an api of its own, with keys it holds.
 */
function googleEnv(dataDir: string): Record<string, string> {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwks = path.join(dataDir, 'google-jwks.json');
  fs.writeFileSync(jwks, JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'stack', alg: 'RS256', use: 'sig' }] }));
  return { GOOGLE_CLIENT_IDS: 'vault-test-stack.apps.googleusercontent.com', GOOGLE_JWKS_URL: jwks };
}

export default async function globalSetup(): Promise<void> {
  const dataDir = makeDataDir('vault-test-');
  const mailbox = path.join(dataDir, 'mailbox.jsonl');
  const readyFile = path.join(dataDir, 'ready.json');
  const logFile = path.join(dataDir, 'stack.log');
  const smtp = await startFakeSmtp(mailbox);
  // The exchange aggregator the swap steps quote from (test/integration/transaction-steps.test.ts).
  const swaps = await startFakeSwapAggregator({ apiKey: SWAP_API_KEY });
  shareSwapAggregator(swaps);
  // The default model provider (ai_generate steps without their own, the automation assistant).
  const ai = await startFakeAiServer('openai', { apiKey: STACK_AI_KEY, defaultReply: DEFAULT_STACK_REPLY });
  shareAiServer(ai);
  // The payment processor, as a deployment with billing has it: Stripe's API mock, and a webhook
  // secret test/integration/payment-processor.test.ts signs events with.
  const stripe = await startStripeMock();
  const stripeWebhookSecret = `whsec_${randomBytes(24).toString('hex')}`;
  process.env.TEST_STRIPE_WEBHOOK_SECRET = stripeWebhookSecret;
  process.env.TEST_STRIPE_API_URL = stripe.url; // for a stack of a test's own (docs/billing.md's)
  // docs/operations.md scrapes the stack's /metrics (the api's and the worker's, one process).
  const metricsPort = await freePort();
  const child = spawnEntry('workers/dev.ts', {
    DATA_DIR: dataDir,
    METRICS_PORT: String(metricsPort),
    PORT: String(await freePort()),
    TEMPORAL_UI: 'off',
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    DEV_READY_FILE: readyFile,
    RATE_LIMIT_RPS: '100000',
    RATE_LIMIT_BURST: '100000',
    LOG_LEVEL: 'warn',
    // Webhook receivers in tests listen on 127.0.0.1; retries wait 0.1 s, 0.3 s, 0.9 s … (the dev server fires timers under 1 s after about 1 s)
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    WEBHOOK_RETRY_INITIAL_SECONDS: '0.1',
    SHARE_ACCESS_MAIL_WINDOW_SECONDS: '1',
    // test/integration/temporal-codec.test.ts signs this address up as the platform operator.
    // test/integration/chains.test.ts signs up chains-operator@ops.test, so the two files never race for one account.
    // test/integration/billing-tier.test.ts signs up billing-operator@ops.test; org-limits.test.ts limits-operator@ops.test; admin-settings.test.ts settings-operator@ops.test.
    // Each test file that points a chain at its own EVM node signs up its own operator (intents-*@ops.test); so do
    // the Intents tests of each chain family and treasury-wallets-families/-xrp, which point the seeded networks at their nodes.
    PLATFORM_ADMIN_EMAILS: 'operator@ops.test,chains-operator@ops.test,billing-operator@ops.test,limits-operator@ops.test,settings-operator@ops.test,intents-operator@ops.test,intents-steps-operator@ops.test,intents-mcp-operator@ops.test,sender-operator@ops.test,treasury-wallets-operator@ops.test,safe-operator@ops.test,safe-queue-operator@ops.test,mcp-safe-operator@ops.test,bitcoin-operator@ops.test,solana-operator@ops.test,xrp-operator@ops.test,treasury-xrp-operator@ops.test,treasury-families-operator@ops.test,tron-operator@ops.test,cardano-operator@ops.test',
    SWAP_API_URL: swaps.url,
    SWAP_API_KEY,
    // test/integration/chains.test.ts creates this chain: its rpc_url comes from here and is never shown publicly.
    CHAIN_RPC_URLS: 'pinned-testnet=https://pinned.example.test/v2/pinned-key-0123456789abcdef',
    AI_PROVIDER: 'openai', AI_BASE_URL: ai.baseUrl, AI_API_KEY: STACK_AI_KEY, AI_MODEL: STACK_AI_MODEL, AI_PRICES: JSON.stringify(STACK_AI_PRICES),
    // Passkeys: test/helpers/software-authenticator.ts signs for this rp id and these origins.
    STRIPE_SECRET_KEY: 'sk_test_stack', STRIPE_WEBHOOK_SECRET: stripeWebhookSecret, STRIPE_API_URL: stripe.url,
    BILLING_RETURN_URL: 'https://app.example.test/billing',
    WEBAUTHN_RP_ID: STACK_WEBAUTHN.rpId, WEBAUTHN_ORIGINS: `${STACK_WEBAUTHN.origin},${STACK_WEBAUTHN.otherOrigin}`,
    ...googleEnv(dataDir),
    ...kmsEnv(dataDir),
  }, logFile);
  const g = globalThis as { __stack?: unknown };
  g.__stack = { child, smtp, swaps, ai, stripe };
  try {
    const info = await waitFor<StackInfo>('test stack', 300_000, () => (fs.existsSync(readyFile) && fs.statSync(readyFile).size > 0
      ? JSON.parse(fs.readFileSync(readyFile, 'utf8')) as StackInfo : undefined), () => child.exitCode !== null);
    process.env.TEST_API_URL = info.apiUrl;
    process.env.TEST_DATABASE_URL = info.databaseUrl;
    process.env.TEST_TEMPORAL_ADDRESS = info.temporalAddress;
    process.env.TEST_MAILBOX = mailbox;
    process.env.TEST_DATA_DIR = dataDir;
    process.env.TEST_METRICS_PORT = String(metricsPort);
    // Every api a test starts (workers/api.ts) runs as one process unless the test asks for more
    // (the default is one per core; test/integration/api-processes.test.ts runs two).
    process.env.API_PROCESSES ??= '1';
  } catch (e) {
    await stopGroup(child);
    await smtp.close();
    await swaps.stop();
    await ai.stop();
    await stripe.stop();
    const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-4000) : '';
    throw new Error(`${(e as Error).message}\n--- stack log ---\n${tail}`);
  }
}
