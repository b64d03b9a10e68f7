// Docs that cannot rot: every ```sh block of README.md and docs/*.md runs against the test
// stack, page by page, each page in ONE bash process (test/helpers/doc-blocks.ts). A block marked
// `<!-- not run: <reason> -->` on the line before its fence is skipped; nothing else is.
//
// The pages' stated setup, as the test stack provides it (docs/README.md, "Trying the walk-throughs"):
//   B               the API's base URL (npm start prints it; here the test stack's api)
//   mail_to A RE    the last match of RE in mail to address A, waiting for it (npm start prints
//                   mail to its log; here the stack's fake SMTP server writes a mailbox file)
//   OPERATOR_TOKEN  a platform operator's token (an address of PLATFORM_ADMIN_EMAILS, verified;
//                   here one of the test stack's operators, shared with billing-tier.test.ts
//                   through operatorAccount, which signs up or logs in)
//   ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY (docs/ai-and-bindings.md): Anthropic and your key;
//                   here a local stand-in speaking the Messages API (test/helpers/fake-ai-server.ts)
//   METRICS_PORT (docs/operations.md): the metrics port npm start was given; here the stack's
//   TEMPORAL_ADDRESS (docs/operations.md): the Temporal address npm start prints; here the stack's
//   DATA_DIR (docs/operations.md, the backup drill): the data directory of the running npm start;
//                   here the test stack's, which the drill backs up while the suite runs
// docs/billing.md states its own: B is an api with REQUEST_QUOTAS=on, Stripe and outbound calls to
// 127.0.0.1 allowed, OPERATOR_TOKEN an operator there, STRIPE_WEBHOOK_SECRET its webhook secret.
// Counting requests and taking x402 payments would change what the shared stack answers every
// other test, so that page gets a stack of its own (Stripe's mock from the global setup).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { closeDb, operatorAccount } from '../helpers/api.ts';
import { describeFailure, parseDocBlocks, runDocPage } from '../helpers/doc-blocks.ts';
import { startFakeAiServer, type FakeAiServer } from '../helpers/fake-ai-server.ts';
import { projectRoot } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';

const DOCS = path.join(projectRoot, 'docs');
const PAGES = ['README.md', ...fs.readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

const PREAMBLE = String.raw`
# The stated setup of every page (see the header of test/docs/walkthroughs.test.ts).
export B="$TEST_API_URL"
mail_to() {
  local i m
  for i in $(seq 1 450); do
    m=$(jq -r --arg to "$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')" 'select(.to | index($to)) | .text' "$TEST_MAILBOX" \
      | grep -oE -- "$2" | tail -n 1 || true)
    if [ -n "$m" ]; then printf '%s\n' "$m"; return 0; fi
    sleep 0.2
  done
  echo "mail_to: no mail to $1 matching $2 within 90 s" >&2
  return 1
}
`;

const ANTHROPIC_API_KEY = 'sk-ant-docs-0123456789abcdef';
let operatorToken = '';
let anthropic: FakeAiServer | undefined;
const billingStack = new IsolatedStack('docs_billing');
const BILLING_OPERATOR = 'docs-billing-operator@ops.test';
const BILLING_WEBHOOK_SECRET = `whsec_docs_${randomBytes(16).toString('hex')}`;
const pageEnv: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  operatorToken = (await operatorAccount('billing-operator@ops.test')).token;
  anthropic = await startFakeAiServer('anthropic', { apiKey: ANTHROPIC_API_KEY, defaultReply: { text: 'All systems operational.' } });
  await billingStack.start({
    REQUEST_QUOTAS: 'on', PLATFORM_ADMIN_EMAILS: BILLING_OPERATOR, OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
    STRIPE_SECRET_KEY: 'sk_test_docs', STRIPE_WEBHOOK_SECRET: BILLING_WEBHOOK_SECRET, STRIPE_API_URL: process.env.TEST_STRIPE_API_URL!,
  });
  const up = await fetch(`${billingStack.apiUrl}/v1/auth/signup`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: BILLING_OPERATOR, password: 'correct-horse-battery' }),
  });
  await billingStack.pool.query('UPDATE users SET email_verified = true WHERE email = $1', [BILLING_OPERATOR]);
  pageEnv['docs/billing.md'] = {
    TEST_API_URL: billingStack.apiUrl, OPERATOR_TOKEN: ((await up.json()) as { access_token: string }).access_token,
    STRIPE_WEBHOOK_SECRET: BILLING_WEBHOOK_SECRET,
  };
}, 240_000);
afterAll(async () => {
  await anthropic?.stop();
  await billingStack.stop();
  await closeDb(); // the stack's database was made (and dropped) through the shared pool
});

describe('the markers', () => {
  test.each(PAGES)('%s: every "not run" marker gives a reason', (page) => {
    const { errors } = parseDocBlocks(fs.readFileSync(path.join(projectRoot, page), 'utf8'));
    expect(errors).toEqual([]);
  });

  test('a marker without a reason is an error; a marked block is not run; indented fences count', () => {
    const md = [
      '<!-- not run -->', '```sh', 'false', '```', '',
      '<!-- not run: needs a real HSM -->', '', '```sh', 'false', '```',
      '- a list item:', '', '  ```sh', '  echo indented', '  ```',
      '```json', '{}', '```',
    ].join('\n');
    const { blocks, errors } = parseDocBlocks(md);
    expect(errors).toEqual([expect.stringContaining('needs a reason')]);
    expect(blocks.map((b) => [b.index, b.line, b.notRun, b.code])).toEqual([
      [1, 2, '', 'false'],
      [2, 8, 'needs a real HSM', 'false'],
      [3, 13, undefined, 'echo indented'],
    ]);
  });
});

describe('every environment variable the code reads is on docs/configuration.md', () => {
  const read = (f: string) => fs.readFileSync(path.join(projectRoot, f), 'utf8');
  const source = (dir: string) => fs.readdirSync(path.join(projectRoot, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts')).map((f) => read(path.join(dir, f))).join('\n');
  test('domain/config.ts, the MCP server, the entry points, npm run chain and the bench', () => {
    const page = read('docs/configuration.md');
    const config = read('domain/config.ts');
    const schema = config.slice(config.indexOf('const EnvSchema'), config.indexOf('export type Config'));
    const names = new Set([...schema.matchAll(/^\s{2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!));
    const mcpDir = fs.existsSync(path.join(projectRoot, 'mcp')) ? 'mcp' : 'api/mcp';
    for (const m of source(mcpDir).matchAll(/pick\(env,\s*((?:'[A-Z0-9_]+',?\s*)+)\)/g)) {
      for (const n of m[1]!.matchAll(/'([A-Z0-9_]+)'/g)) names.add(n[1]!);
    }
    const elsewhere = [source('workers'), read('test/tools/local-chain.ts'), source('test/bench'), read('bin/node24')].join('\n');
    for (const m of elsewhere.matchAll(/process\.env\.([A-Z][A-Z0-9_]+)|process\.env\[['"]([A-Z][A-Z0-9_]+)['"]\]|\$\{?([A-Z][A-Z0-9_]+_BIN)\b/g)) {
      names.add((m[1] ?? m[2] ?? m[3])!);
    }
    // The observability variables (domain/observability/settings.ts): its schema and the OTEL_* it reads.
    const telemetry = read('domain/observability/settings.ts');
    for (const m of telemetry.matchAll(/^\s{2}([A-Z][A-Z0-9_]+):|env\.([A-Z][A-Z0-9_]+)/gm)) names.add((m[1] ?? m[2])!);
    names.delete('PATH');
    expect(names.size).toBeGreaterThan(40);
    const missing = [...names].filter((n) => !new RegExp('`' + n + '`').test(page)).sort();
    expect(missing).toEqual([]);
  });
});

describe('the walk-throughs run against the test stack', () => {
  test.each(PAGES)('%s', async (page) => {
    const run = await runDocPage(path.join(projectRoot, page), {
      preamble: PREAMBLE,
      env: {
        OPERATOR_TOKEN: operatorToken, ANTHROPIC_BASE_URL: anthropic!.baseUrl, ANTHROPIC_API_KEY,
        TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!, METRICS_PORT: process.env.TEST_METRICS_PORT!,
        DATA_DIR: process.env.TEST_DATA_DIR!,
        ...pageEnv[page],
      },
      cwd: projectRoot,
      timeoutMs: 240_000,
    });
    if (!run.ok) throw new Error(describeFailure(page, run));
  }, 260_000);
});
