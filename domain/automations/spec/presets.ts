// The ten ready-made automations of GET /v1/automations/presets (spec §4.16), in the spec's order.
// Each uses only step types this release runs (the exchange swap, AI generation and transaction
// steps arrive later; the presets that need them use an HTTP call and a human approval instead)
// and passes parseWorkflowSpec as it stands. Values a user must edit are obvious placeholders:
// example.com URLs, the nil vault id, example e-mail addresses. Webhook presets read the request
// body through `{{trigger.…}}`.

export type AutomationPreset = {
  id: string;
  name: string;
  description: string;
  trigger_type: 'cron' | 'webhook';
  /** null for webhook presets. */
  cron_expr: string | null;
  default_cron: string | null;
  /** US dollars: the platform's run charge plus the outbound calls, excluding third-party fees. */
  estimated_cost_per_run: number;
  workflow_spec: { steps: Record<string, unknown>[] };
};

/** Replace with the id of the vault the automation's agent may use. */
const VAULT = '00000000-0000-0000-0000-000000000000';
const SLACK = 'https://hooks.slack.com/services/REPLACE/WITH/YOUR-WEBHOOK';

const cron = (expr: string) => ({ trigger_type: 'cron' as const, cron_expr: expr, default_cron: expr });
const webhook = { trigger_type: 'webhook' as const, cron_expr: null, default_cron: null };

export const AUTOMATION_PRESETS: readonly AutomationPreset[] = [
  {
    id: 'rotate-api-keys-weekly',
    name: 'Rotate API keys weekly',
    description: 'Every Monday at 03:00 generates a fresh 48-character API key in your vault (the previous value stays as an older version), '
      + 'tells the service that uses it to reload its credentials, and posts a confirmation to Slack. Set the vault, the secret path and both URLs.',
    ...cron('0 3 * * 1'),
    estimated_cost_per_run: 0.002,
    workflow_spec: {
      steps: [
        { type: 'rotate_generate', name: 'rotate', params: { vault_id: VAULT, path: 'api-keys/primary', length: 48, charset: 'alphanumeric' } },
        {
          type: 'http', name: 'reload',
          params: { url: 'https://example.com/internal/reload-credentials', method: 'POST', body: { path: '{{steps.rotate.path}}', version: '{{steps.rotate.version}}' } },
        },
        { type: 'notify', params: { channel: 'slack', url: SLACK, message: 'API key {{steps.rotate.path}} rotated to version {{steps.rotate.version}}; reload answered HTTP {{steps.reload.status}}.' } },
      ],
    },
  },
  {
    id: 'daily-dca-buy',
    name: 'Daily DCA buy',
    description: 'Dollar-cost averaging: every day at 14:00 UTC fetches a quote for a fixed USD amount of ETH from your exchange\'s quote API, '
      + 'asks a human to approve the purchase with the quoted price, and notifies your webhook with the approved order so your trading '
      + 'system can place it. Set the quote URL, the amount and the webhook.',
    ...cron('0 14 * * *'),
    estimated_cost_per_run: 0.003,
    workflow_spec: {
      steps: [
        { type: 'http', name: 'quote', params: { url: 'https://example.com/exchange/v1/quote?sell=USDC&buy=ETH&amount_usd=50', method: 'GET', timeout_secs: 15 } },
        {
          type: 'approval_request', name: 'approval',
          params: {
            action: 'dca_buy',
            summary: { pair: 'USDC→ETH', amount_usd: 50, quoted_price: '{{steps.quote.body.price}}', quote_id: '{{steps.quote.body.id}}' },
            reason: 'Scheduled daily dollar-cost-averaging purchase',
            risk_tier: 2,
            expires_in_secs: 3600,
          },
        },
        {
          type: 'notify',
          params: {
            channel: 'webhook', url: 'https://example.com/hooks/place-order',
            message: 'DCA buy of 50 USD in ETH approved at {{steps.quote.body.price}}',
            payload: { quote_id: '{{steps.quote.body.id}}', amount_usd: 50, approved_by: '{{steps.approval.decided_by}}' },
          },
        },
      ],
    },
  },
  {
    id: 'health-check-alert',
    name: 'Health check alert',
    description: 'Every 5 minutes calls your service\'s health endpoint and posts to Slack when it does not answer 200, with the status it got. '
      + 'Set the health URL and the Slack incoming-webhook URL.',
    ...cron('*/5 * * * *'),
    estimated_cost_per_run: 0.001,
    workflow_spec: {
      steps: [
        { type: 'http', name: 'health', params: { url: 'https://example.com/health', method: 'GET', timeout_secs: 10 } },
        {
          type: 'condition',
          expression: '{{steps.health.status}} != 200',
          if_true: [{ type: 'notify', params: { channel: 'slack', url: SLACK, message: 'Health check failed: https://example.com/health answered HTTP {{steps.health.status}}.' } }],
        },
      ],
    },
  },
  {
    id: 'database-sync',
    name: 'Nightly database sync',
    description: 'Every night at 02:00 reads the sync service\'s API token from your vault, asks the service to copy the source database '
      + 'to the replica, and e-mails the result. The token is sent only to the URL you configure. Set the vault, the secret path, the URL and the address.',
    ...cron('0 2 * * *'),
    estimated_cost_per_run: 0.002,
    workflow_spec: {
      steps: [
        { type: 'get_secret', name: 'token', params: { vault_id: VAULT, path: 'sync/api-token' } },
        {
          type: 'http', name: 'sync',
          params: {
            url: 'https://example.com/api/sync-jobs', method: 'POST', timeout_secs: 30,
            headers: { Authorization: 'Bearer {{steps.token.value}}' },
            body: { source: 'primary', target: 'replica', mode: 'incremental' },
          },
        },
        { type: 'notify', params: { channel: 'email', to: 'ops@example.com', subject: 'Nightly database sync', message: 'The sync service answered HTTP {{steps.sync.status}}: {{steps.sync.body}}' } },
      ],
    },
  },
  {
    id: 'weekly-content-draft',
    name: 'Weekly content draft',
    description: 'Every Monday at 09:00 reads your brand voice notes from the agent\'s memory, asks your content service for a draft post '
      + 'in that voice, keeps the draft in memory for next week\'s context, and e-mails it to your editor for review.',
    ...cron('0 9 * * 1'),
    estimated_cost_per_run: 0.003,
    workflow_spec: {
      steps: [
        { type: 'memory_get', name: 'voice', params: { namespace: 'content', key: 'brand-voice' } },
        {
          type: 'http', name: 'draft',
          params: { url: 'https://example.com/api/content/drafts', method: 'POST', timeout_secs: 30, body: { topic: 'Weekly product update', voice: '{{steps.voice.value}}' } },
        },
        { type: 'memory_put', params: { namespace: 'content', key: 'last-draft', value: '{{steps.draft.body}}', tier: 'durable' } },
        { type: 'notify', params: { channel: 'email', to: 'editor@example.com', subject: 'This week\'s draft post', message: '{{steps.draft.body}}' } },
      ],
    },
  },
  {
    id: 'competitor-watch',
    name: 'Competitor watch',
    description: 'Every day at 08:00 fetches a competitor\'s pricing page (or API), compares it with what was seen last time, '
      + 'and when it changed stores the new version and posts to Slack. Set the page URL and the Slack webhook.',
    ...cron('0 8 * * *'),
    estimated_cost_per_run: 0.002,
    workflow_spec: {
      steps: [
        { type: 'http', name: 'page', params: { url: 'https://example.com/competitor/pricing', method: 'GET' } },
        { type: 'memory_get', name: 'previous', params: { namespace: 'competitor-watch', key: 'pricing' } },
        {
          type: 'condition',
          expression: '{{steps.page.body}} != {{steps.previous.value}}',
          if_true: [
            { type: 'memory_put', params: { namespace: 'competitor-watch', key: 'pricing', value: '{{steps.page.body}}' } },
            { type: 'notify', params: { channel: 'slack', url: SLACK, message: 'Competitor pricing page changed (HTTP {{steps.page.status}}). Review https://example.com/competitor/pricing' } },
          ],
        },
      ],
    },
  },
  {
    id: 'campaign-report',
    name: 'Weekly campaign report',
    description: 'Every Monday at 09:00 pulls last week\'s campaign statistics from your marketing API, keeps them in memory so later '
      + 'runs can compare, and e-mails the report. Set the API URL, its key path in the vault and the recipient.',
    ...cron('0 9 * * 1'),
    estimated_cost_per_run: 0.002,
    workflow_spec: {
      steps: [
        { type: 'get_secret', name: 'key', params: { vault_id: VAULT, path: 'marketing/api-key' } },
        {
          type: 'http', name: 'stats',
          params: { url: 'https://example.com/api/campaigns/stats?range=7d', method: 'GET', headers: { Authorization: 'Bearer {{steps.key.value}}' } },
        },
        { type: 'memory_put', params: { namespace: 'campaigns', key: 'last-weekly-report', value: '{{steps.stats.body}}', tier: 'durable' } },
        { type: 'notify', params: { channel: 'email', to: 'marketing@example.com', subject: 'Weekly campaign report', message: 'Campaign statistics for the last 7 days:\n{{steps.stats.body}}' } },
      ],
    },
  },
  {
    id: 'monitor-balance',
    name: 'Monitor balance',
    description: 'Every 15 minutes reads a wallet or account balance from your balance API and posts to Slack when it falls below 100 USD, '
      + 'so you can top it up before payments fail. Set the API URL, the threshold and the Slack webhook.',
    ...cron('*/15 * * * *'),
    estimated_cost_per_run: 0.001,
    workflow_spec: {
      steps: [
        { type: 'http', name: 'balance', params: { url: 'https://example.com/api/balance?account=REPLACE', method: 'GET' } },
        {
          type: 'condition',
          expression: '{{steps.balance.body.balance_usd}} < 100',
          if_true: [{ type: 'notify', params: { channel: 'slack', url: SLACK, message: 'Balance is low: {{steps.balance.body.balance_usd}} USD (threshold 100 USD).' } }],
        },
      ],
    },
  },
  {
    id: 'lead-nurture-email',
    name: 'Lead nurture e-mail',
    description: 'Triggered by your sign-up form or CRM webhook with a JSON body like {"email": "...", "name": "..."}: remembers the lead, '
      + 'sends a welcome e-mail, and registers the lead in your CRM for the follow-up sequence. Set the CRM URL and the wording.',
    ...webhook,
    estimated_cost_per_run: 0.002,
    workflow_spec: {
      steps: [
        { type: 'memory_put', params: { namespace: 'leads', key: '{{trigger.email}}', value: '{{trigger}}', tier: 'durable' } },
        {
          type: 'notify',
          params: {
            channel: 'email', to: '{{trigger.email}}', subject: 'Welcome aboard, {{trigger.name}}',
            message: 'Hi {{trigger.name}},\n\nThanks for your interest. Here is how to get started: https://example.com/getting-started\n\nReply to this e-mail with any question.',
          },
        },
        { type: 'http', params: { url: 'https://example.com/crm/leads', method: 'POST', body: { email: '{{trigger.email}}', name: '{{trigger.name}}', stage: 'welcomed' } } },
      ],
    },
  },
  {
    id: 'sentiment-alert',
    name: 'Sentiment alert',
    description: 'Triggered by your social-listening or support tool\'s webhook with a message in {"text": "...", "source": "..."}: scores it '
      + 'with your sentiment API and posts to Slack when the score is below -0.5, so negative mentions get a quick answer.',
    ...webhook,
    estimated_cost_per_run: 0.002,
    workflow_spec: {
      steps: [
        { type: 'http', name: 'sentiment', params: { url: 'https://example.com/api/sentiment', method: 'POST', body: { text: '{{trigger.text}}' } } },
        {
          type: 'condition',
          expression: '{{steps.sentiment.body.score}} < -0.5',
          if_true: [{ type: 'notify', params: { channel: 'slack', url: SLACK, message: 'Negative mention on {{trigger.source}} (score {{steps.sentiment.body.score}}): {{trigger.text}}' } }],
        },
      ],
    },
  },
];
