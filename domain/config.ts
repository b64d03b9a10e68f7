// Process configuration, read once from the environment and validated at start.
// A wrong or missing variable is named in the error so the operator can fix it.
import { z } from 'zod';
import os from 'node:os';
import path from 'node:path';
import { parseCidr } from './net/ip.ts';
import { chainNameProblem, endpointUrlProblem } from './chains/chain-fields.ts';
import { AI_PROTOCOLS, DEFAULT_BASE_URLS, type AiProtocol } from './ai/protocols.ts';
import { parsePriceOverrides, priceTable, type PriceTable } from './ai/prices.ts';
import type { RateLimitStoreConfig } from './ratelimit/rate-limits.ts';

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const optionalUrl = (protocols: string[]) =>
  z.string().optional().refine(
    (v) => v === undefined || v === '' || protocols.some((p) => v.startsWith(p)),
    { message: `must start with one of ${protocols.join(', ')}` },
  );

/** A comma-separated list: entries trimmed, empty ones dropped. */
const commaList = (v: string) => v.split(',').map((x) => x.trim()).filter((x) => x !== '');

/** The Temporal UI's default port (the dev server's own default): operators bookmark it. */
export const DEFAULT_TEMPORAL_UI_PORT = 8233;

/** The origins a browser shows the Temporal UI on at `port`: both loopback spellings. */
export const uiOriginsFor = (port: number) => [`http://localhost:${port}`, `http://127.0.0.1:${port}`];

const EnvSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  // workers/api.ts: api processes sharing the port (one per core by default; workers/api-cluster.ts).
  API_PROCESSES: z.coerce.number().int().min(1).max(256).optional(),
  PUBLIC_URL: optionalUrl(['http://', 'https://']),
  DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_URL: optionalUrl(['postgres://', 'postgresql://']),
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_CLI_PATH: z.string().optional(),
  // The dev launcher serves the Temporal UI here; taken, it falls back to a free port and says so.
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(DEFAULT_TEMPORAL_UI_PORT),
  // Origins whose pages may call the codec endpoint (CORS); default: the dev UI on TEMPORAL_UI_PORT.
  TEMPORAL_UI_ORIGINS: z.string().optional().transform((v, ctx) => {
    if (v === undefined) return undefined;
    const origins = commaList(v);
    for (const o of origins) {
      if (!isOrigin(o)) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(o)} is not an origin (scheme://host[:port], no path), e.g. http://localhost:8233` });
    }
    return origins.map((o) => o.toLowerCase());
  }),
  // Passkeys (WebAuthn): the relying party id (a registrable domain, no scheme or port) and the
  // exact origins whose pages may register and use them; both default from PUBLIC_URL.
  WEBAUTHN_RP_ID: z.string().trim().toLowerCase().optional().refine(
    (v) => v === undefined || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(v),
    { message: 'must be a host name (e.g. vault.example.com), without scheme, port or path' },
  ),
  WEBAUTHN_ORIGINS: z.string().optional().transform((v, ctx) => {
    if (v === undefined) return undefined;
    const origins = commaList(v);
    for (const o of origins) {
      if (!isOrigin(o)) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(o)} is not an origin (scheme://host[:port], no path), e.g. https://vault.example.com` });
    }
    return origins.map((o) => o.toLowerCase());
  }),
  // Platform operators (may decode Temporal payloads): accounts whose current e-mail is listed.
  PLATFORM_ADMIN_EMAILS: z.string().default('').transform((v, ctx) => {
    const emails = commaList(v).map((e) => e.toLowerCase());
    for (const e of emails) {
      if (!/^[^@\s]+@[^@\s]+$/.test(e)) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(e)} is not an e-mail address` });
    }
    return [...new Set(emails)];
  }),
  ROOT_KEY: z.string().optional().refine(
    (v) => v === undefined || v === '' || Buffer.from(v, 'base64').length === 32,
    { message: 'must be 32 bytes, base64-encoded (e.g. `openssl rand -base64 32`)' },
  ),
  KMS_BACKEND: z.enum(['local', 'pkcs11']).default('local'),
  PKCS11_MODULE: z.string().optional(),
  PKCS11_TOKEN_LABEL: z.string().optional(),
  PKCS11_PIN: z.string().optional(),
  SMTP_URL: optionalUrl(['smtp://', 'smtps://']),
  MAIL_FROM: z.string().min(3).default('Vault <no-reply@localhost>'),
  RATE_LIMIT_RPS: positiveInt.default(100),
  RATE_LIMIT_BURST: positiveInt.default(200),
  // Monthly request quotas per plan (domain/billing): on for a hosted service that bills; off (default): nothing is counted.
  REQUEST_QUOTAS: z.enum(['on', 'off'], { message: 'must be on or off' }).default('off'),
  // Where every api process keeps the rate limits' counters; default: redis with REDIS_URL, else postgres.
  RATE_LIMIT_STORE: z.enum(['memory', 'postgres', 'redis'], { message: 'must be memory, postgres or redis' }).optional(),
  REDIS_URL: optionalUrl(['redis://', 'rediss://']),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024),
  // Spec §9.3: the same API also under this path prefix (e.g. /api serves /api/v1/...); unset: off.
  DASHBOARD_PREFIX: z.string().optional().transform((v, ctx) => {
    if (v === undefined) return null;
    const why = dashboardPrefixProblem(v);
    if (why) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v.slice(0, 100))} ${why}` });
    return v;
  }),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  // Seconds before a failed webhook delivery's first retry; each later wait is three times longer.
  WEBHOOK_RETRY_INITIAL_SECONDS: z.coerce.number().min(0.1).max(3600).default(10),
  // Spec §8: an automation run may run 300 s (waiting for an approval does not count).
  AUTOMATION_RUN_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  // Dispatched events, finished webhook deliveries and execution events older than this many days
  // are deleted daily (domain/retention); 0 keeps them forever. The audit log is never pruned.
  RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
  // Opens of one share within this window reach its creator as one mail.
  SHARE_ACCESS_MAIL_WINDOW_SECONDS: z.coerce.number().min(0.1).max(86_400).default(60),
  // Per-deployment RPC endpoints: `name=url,name=url` pins those chains' rpc_url (on read, never stored).
  CHAIN_RPC_URLS: z.string().default('').transform((v, ctx) => parseChainRpcUrls(v, (message) => ctx.addIssue({ code: 'custom', message }))),
  // The exchange aggregator behind `swap` steps (0x Swap API v2) and its key, sent as `0x-api-key`.
  SWAP_API_URL: z.string().default('https://api.0x.org').refine(
    (v) => /^https?:\/\//i.test(v) && URL.canParse(v),
    { message: 'must be an http or https URL (e.g. https://api.0x.org)' },
  ),
  SWAP_API_KEY: z.string().optional(),
  // The payment processor (Stripe): unset key → the checkout and portal routes answer 501.
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  STRIPE_API_URL: z.string().optional().refine(
    (v) => v === undefined || (/^https?:\/\//i.test(v) && URL.canParse(v)),
    { message: 'must be an http or https URL (e.g. http://127.0.0.1:12111 for stripe-mock)' },
  ),
  // Where checkout and the portal send the customer back (the dashboard's billing page).
  BILLING_RETURN_URL: z.string().default('http://localhost:8080/billing').refine(
    (v) => /^https?:\/\//i.test(v) && URL.canParse(v),
    { message: 'must be an http or https URL' },
  ),
  // The operator's default model provider (ai_generate steps, the automation assistant); unset: none.
  AI_PROVIDER: z.enum(AI_PROTOCOLS, { message: `must be one of ${AI_PROTOCOLS.join(', ')} (or empty for none)` }).optional(),
  AI_BASE_URL: z.string().optional().refine(
    (v) => v === undefined || (/^https?:\/\//i.test(v) && URL.canParse(v)),
    { message: 'must be an http or https URL (e.g. https://api.openai.com/v1, http://127.0.0.1:11434/v1)' },
  ),
  AI_API_KEY: z.string().optional(),
  AI_MODEL: z.string().max(200).optional(),
  // Model prices in US cents per million tokens, over the built-in table (domain/ai/prices.ts).
  AI_PRICES: z.string().default('').transform((v, ctx) => (v.trim() === '' ? new Map()
    : parsePriceOverrides(v, (message) => ctx.addIssue({ code: 'custom', message })))),
  // Google sign-in (POST /v1/auth/google): the OAuth client ids an ID token's `aud` may name; unset: off (501).
  GOOGLE_CLIENT_IDS: z.string().optional().transform((v, ctx) => {
    if (v === undefined) return undefined;
    const ids = commaList(v);
    for (const id of ids) {
      if (/[\s"]/.test(id) || id.length > 256) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(id)} is not an OAuth client id (e.g. 1234-abc.apps.googleusercontent.com)` });
    }
    if (ids.length === 0) ctx.addIssue({ code: 'custom', message: 'names no client id' });
    return [...new Set(ids)];
  }),
  // Where Google's signing keys are: its published JWKS, another http(s) URL, or a local file path.
  GOOGLE_JWKS_URL: z.string().optional().refine(
    (v) => v === undefined || !/^[a-z][a-z0-9+.-]*:\/\//i.test(v) || (/^https?:\/\//i.test(v) && URL.canParse(v)),
    { message: 'must be an http or https URL (e.g. https://www.googleapis.com/oauth2/v3/certs) or a file path' },
  ),
  // Comma-separated CIDRs the outbound client may reach although private (tests, local dev).
  OUTBOUND_ALLOW_CIDRS: z.string().default('').transform((v, ctx) => {
    const entries = v.split(',').map((s) => s.trim()).filter((s) => s !== '');
    for (const entry of entries) {
      if (!parseCidr(entry)) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(entry)} is not a CIDR (e.g. 127.0.0.0/8)` });
    }
    return entries;
  }),
});

export type Config = {
  port: number;
  host: string;
  /** How many api processes workers/api.ts runs on the one port (API_PROCESSES, else the core count). */
  apiProcesses: number;
  publicUrl: string;
  /** JWT issuer: PUBLIC_URL when set, else a constant, so tokens survive restarts on other ports. */
  jwtIssuer: string;
  dataDir: string;
  databaseUrl: string | undefined;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  temporalCliPath: string | undefined;
  /** Where the dev launcher serves the Temporal UI (a fallback port is used only if it is taken). */
  temporalUiPort: number;
  /** Exact origins allowed to call the Temporal codec endpoint from a browser. */
  temporalUiOrigins: string[];
  /** Lower-cased e-mails of platform operators (domain/auth/platform-operators.ts). */
  platformAdminEmails: string[];
  rootKey: Buffer | undefined;
  kms: { backend: 'local' } | { backend: 'pkcs11'; modulePath: string; tokenLabel: string; pin: string };
  smtpUrl: string | undefined;
  mailFrom: string;
  /** The global per-address limit, and the store every limit keeps its counters in (domain/ratelimit). */
  rateLimit: { ratePerSecond: number; burst: number; store: RateLimitStoreConfig };
  /** REQUEST_QUOTAS=on: billable requests count against their organization's monthly quota (402 past it). */
  requestQuotas: boolean;
  trustProxyHops: number;
  bodyLimitBytes: number;
  /** DASHBOARD_PREFIX: the path prefix the API is also served under (spec §9.3); null when off. */
  dashboardPrefix: string | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** CIDRs exempted from the outbound address policy; empty in production. */
  outboundAllowCidrs: string[];
  /** Wait before a webhook delivery's first retry (later waits grow threefold, at most 1 hour). */
  webhookRetryInitialSeconds: number;
  /** Running time an automation run may take before it ends `timed_out`. */
  automationRunTimeoutSeconds: number;
  /** Opens of one share within this many seconds are mailed to its creator together. */
  shareAccessMailWindowSeconds: number;
  /** Age in days after which operational history is pruned (domain/retention); 0: never. */
  retentionDays: number;
  /** CHAIN_RPC_URLS: chain name → rpc_url pinned for this deployment (may hold provider keys). */
  chainRpcUrls: ReadonlyMap<string, string>;
  /** Base URL of the 0x Swap API v2 that `swap` steps get quotes from. */
  swapApiUrl: string;
  /** SWAP_API_KEY, sent as `0x-api-key`; null when unset (never logged). */
  swapApiKey: string | null;
  /** The Stripe payment processor; null when STRIPE_SECRET_KEY is unset (checkout and portal answer 501). */
  stripe: { secretKey: string; webhookSecret: string | null; apiUrl: string | null } | null;
  /** BILLING_RETURN_URL: where checkout and the portal send the customer back. */
  billingReturnUrl: string;
  /** The default model provider and the price table (domain/ai). */
  ai: AiConfig;
  /** Google sign-in; null when GOOGLE_CLIENT_IDS is unset (the route answers 501). */
  google: GoogleConfig | null;
  /** Passkeys: the relying party id and the origins assertions may come from. */
  webauthn: { rpId: string; origins: string[] };
};

/** Google's published key set, used when GOOGLE_JWKS_URL is unset. */
export const GOOGLE_JWKS_DEFAULT_URL = 'https://www.googleapis.com/oauth2/v3/certs';

export type GoogleConfig = {
  /** The `aud` values an ID token may carry: this deployment's OAuth client ids. */
  clientIds: string[];
  /** Google's public keys: fetched from a URL, or read from a file (absolute path). */
  jwks: { url: string } | { file: string };
};

export type AiConfig = {
  /** null: no default provider (steps must name their own; the assistant answers 503). */
  provider: AiProtocol | null;
  /** AI_BASE_URL without a trailing slash, or the provider's public endpoint. */
  baseUrl: string;
  /** AI_API_KEY; null when unset (local model servers). Never logged. */
  apiKey: string | null;
  model: string | null;
  prices: PriceTable;
};

export class ConfigError extends Error {}

/** Parses env variables with `schema` (an empty value counts as unset); wrong ones → ConfigError naming each. */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Parses the environment; `required` names variables this process cannot run without. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, required: (keyof z.infer<typeof EnvSchema>)[] = []): Config {
  const e = parseEnv(EnvSchema, env);
  const missing = required.filter((k) => e[k] === undefined);
  if (missing.length > 0) {
    throw new ConfigError(`Missing required environment variable(s): ${missing.join(', ')}`);
  }
  if (e.KMS_BACKEND === 'pkcs11') {
    const absent = (['PKCS11_MODULE', 'PKCS11_TOKEN_LABEL', 'PKCS11_PIN'] as const).filter((k) => !e[k]);
    if (absent.length > 0) throw new ConfigError(`KMS_BACKEND=pkcs11 needs: ${absent.join(', ')}`);
  }
  if (e.AI_PROVIDER === undefined) {
    const orphans = (['AI_BASE_URL', 'AI_API_KEY', 'AI_MODEL'] as const).filter((k) => e[k] !== undefined);
    if (orphans.length > 0) throw new ConfigError(`${orphans.join(', ')} ${orphans.length > 1 ? 'need' : 'needs'} AI_PROVIDER (${AI_PROTOCOLS.join(' or ')})`);
  } else if (e.AI_MODEL === undefined || e.AI_MODEL.trim() === '') {
    throw new ConfigError('AI_PROVIDER needs AI_MODEL, the default model (e.g. gpt-4o-mini, claude-sonnet-4-5, or llama3.1 on Ollama)');
  }
  if (e.GOOGLE_JWKS_URL !== undefined && e.GOOGLE_CLIENT_IDS === undefined) {
    throw new ConfigError('GOOGLE_JWKS_URL needs GOOGLE_CLIENT_IDS (the OAuth client ids Google sign-in accepts)');
  }
  const rateLimitStore = e.RATE_LIMIT_STORE ?? (e.REDIS_URL ? 'redis' : 'postgres');
  if (rateLimitStore === 'redis' && !e.REDIS_URL) throw new ConfigError('RATE_LIMIT_STORE=redis needs REDIS_URL (e.g. redis://redis:6379)');
  const dataDir = path.resolve(e.DATA_DIR);
  const publicUrl = new URL(e.PUBLIC_URL ?? `http://localhost:${e.PORT}`);
  return {
    port: e.PORT,
    host: e.HOST,
    apiProcesses: e.API_PROCESSES ?? os.availableParallelism(),
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    jwtIssuer: e.PUBLIC_URL ? e.PUBLIC_URL.replace(/\/+$/, '') : 'ocv-vault',
    dataDir,
    databaseUrl: e.DATABASE_URL,
    temporalAddress: e.TEMPORAL_ADDRESS,
    temporalNamespace: e.TEMPORAL_NAMESPACE,
    temporalCliPath: e.TEMPORAL_CLI_PATH,
    temporalUiPort: e.TEMPORAL_UI_PORT,
    temporalUiOrigins: e.TEMPORAL_UI_ORIGINS ?? uiOriginsFor(e.TEMPORAL_UI_PORT),
    platformAdminEmails: e.PLATFORM_ADMIN_EMAILS,
    rootKey: e.ROOT_KEY ? Buffer.from(e.ROOT_KEY, 'base64') : undefined,
    kms: e.KMS_BACKEND === 'pkcs11'
      ? { backend: 'pkcs11', modulePath: e.PKCS11_MODULE!, tokenLabel: e.PKCS11_TOKEN_LABEL!, pin: e.PKCS11_PIN! }
      : { backend: 'local' },
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    rateLimit: { ratePerSecond: e.RATE_LIMIT_RPS, burst: e.RATE_LIMIT_BURST, store: { kind: rateLimitStore, redisUrl: e.REDIS_URL } },
    trustProxyHops: e.TRUST_PROXY_HOPS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    dashboardPrefix: e.DASHBOARD_PREFIX,
    logLevel: e.LOG_LEVEL,
    outboundAllowCidrs: e.OUTBOUND_ALLOW_CIDRS,
    webhookRetryInitialSeconds: e.WEBHOOK_RETRY_INITIAL_SECONDS,
    requestQuotas: e.REQUEST_QUOTAS === 'on',
    automationRunTimeoutSeconds: e.AUTOMATION_RUN_TIMEOUT_SECONDS,
    shareAccessMailWindowSeconds: e.SHARE_ACCESS_MAIL_WINDOW_SECONDS,
    retentionDays: e.RETENTION_DAYS,
    chainRpcUrls: e.CHAIN_RPC_URLS,
    swapApiUrl: e.SWAP_API_URL.replace(/\/+$/, ''),
    swapApiKey: e.SWAP_API_KEY ?? null,
    stripe: e.STRIPE_SECRET_KEY ? { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET ?? null, apiUrl: e.STRIPE_API_URL ?? null } : null,
    billingReturnUrl: e.BILLING_RETURN_URL,
    ai: {
      provider: e.AI_PROVIDER ?? null,
      baseUrl: (e.AI_BASE_URL ?? DEFAULT_BASE_URLS[e.AI_PROVIDER ?? 'openai']).replace(/\/+$/, ''),
      apiKey: e.AI_API_KEY ?? null,
      model: e.AI_MODEL?.trim() ?? null,
      prices: priceTable(e.AI_PRICES),
    },
    google: e.GOOGLE_CLIENT_IDS ? { clientIds: e.GOOGLE_CLIENT_IDS, jwks: googleJwks(e.GOOGLE_JWKS_URL ?? GOOGLE_JWKS_DEFAULT_URL) } : null,
    webauthn: { rpId: e.WEBAUTHN_RP_ID ?? publicUrl.hostname, origins: e.WEBAUTHN_ORIGINS ?? [publicUrl.origin] },
  };
}

/** Why `v` cannot be DASHBOARD_PREFIX, or null when it can: a plain path that cannot shadow /v1. */
function dashboardPrefixProblem(v: string): string | null {
  if (!v.startsWith('/') || v.endsWith('/')) return 'must start with / and not end with one (e.g. /api)';
  if (!/^(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/.test(v)) return 'may hold only letters, digits and _ - . ~ between its slashes (no empty, . or .. segment)';
  if (/^\/v1(\/|$)/i.test(v)) return 'would shadow /v1, where the API already is';
  return null;
}

/** An http(s) URL is fetched; anything else is a file path (relative to the working directory). */
const googleJwks = (v: string): GoogleConfig['jwks'] => (/^https?:\/\//i.test(v) ? { url: v } : { file: path.resolve(v) });

/**
 * `name=url` pairs, comma-separated: names as chains spell them (lower-cased here), URLs http(s).
 * A Map, so a name such as `constructor` is only a name. Messages never repeat a URL: it may
 * carry a provider's key, and configuration errors end up in logs.
 */
export function parseChainRpcUrls(v: string, issue: (message: string) => void): Map<string, string> {
  const pins = new Map<string, string>();
  commaList(v).forEach((entry, i) => {
    const eq = entry.indexOf('=');
    if (eq <= 0) { issue(`entry ${i + 1} is not name=url (e.g. ethereum=https://rpc.example.com)`); return; }
    const name = entry.slice(0, eq).trim().toLowerCase();
    const url = entry.slice(eq + 1).trim();
    const nameProblem = chainNameProblem(name);
    if (nameProblem) { issue(`entry ${i + 1}: chain name ${JSON.stringify(name)} ${nameProblem}`); return; }
    const urlProblem = endpointUrlProblem('rpc', url);
    if (urlProblem) { issue(`the URL for ${JSON.stringify(name)} ${urlProblem}`); return; }
    if (pins.has(name)) { issue(`${JSON.stringify(name)} is listed twice`); return; }
    pins.set(name, url);
  });
  return pins;
}

/** `scheme://host[:port]` exactly as browsers send it in Origin: no path, query or credentials. */
function isOrigin(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === v.toLowerCase();
  } catch {
    return false;
  }
}
