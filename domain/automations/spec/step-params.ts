// The parameters of each step type (spec §2.14, §8): what a step may say, the defaults it gets, and
// the bounds the engine relies on. Checked twice: when a workflow is defined (mode 'definition':
// any string with `{{` stands for any field, it is resolved at run time) and again just before
// the step runs (mode 'run': templates resolved, so numeric and boolean text is coerced and
// everything must fit). Keys this file does not know are kept as given: they reach no step.
import { z } from 'zod';
import { isUuid } from '../../ids.ts';
import { CHARSETS } from '../../secrets/secret-generator.ts';
import { SECRET_TYPES } from '../../secrets/secret-types.ts';
import { STEP_LIMITS } from './step-types.ts';
import { PROVIDER_NAMES, protocolOf } from '../../ai/protocols.ts';

export type ParamMode = 'definition' | 'run';
type Params = Record<string, unknown>;

/** A parameter that does not fit; `field` is the parameter's name (with a sub-path for nested values). */
export class StepParamError extends Error {
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.name = 'StepParamError';
    this.field = field;
  }
}

/** Top-level keys of a step that are never parameters. */
export const RESERVED_STEP_KEYS: ReadonlySet<string> = new Set([
  'type', 'action', 'name', 'id', 'description', 'skip_if', 'run_if', 'params', 'expression', 'if_true', 'if_false',
]);

export const isPlainObject = (v: unknown): v is Params => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * One parameter object from the two forms of the reference: `{type, url}` and `{action, params: {url}}`.
 * `params` wins on a clash. Throws when `params` is present but not an object.
 */
export function mergeStepParams(step: Params): Params {
  const out: Params = {};
  for (const [k, v] of Object.entries(step)) if (!RESERVED_STEP_KEYS.has(k) && k !== '__proto__') out[k] = v;
  if (step.params !== undefined) {
    if (!isPlainObject(step.params)) throw new StepParamError('params', 'must be an object');
    for (const [k, v] of Object.entries(step.params)) if (k !== '__proto__') out[k] = v;
  }
  return out;
}

// ---- field rules --------------------------------------------------------------------------------

/** How a run-mode value is coerced before its schema sees it. */
type Kind = 'text' | 'number' | 'boolean' | 'json';
type Field = { schema: z.ZodType; kind: Kind; required?: boolean; default?: unknown };
type Rule = {
  fields: Record<string, Field>;
  /** Other spellings, folded into the canonical name when it is absent. */
  aliases?: Record<string, string>;
  /** Rules across fields, after each field passed. `given(k)` is false for absent and template values. */
  check?: (p: Params, given: (k: string) => boolean) => void;
};

const text = (max: number, min = 0) => {
  let s = z.string({ error: 'must be a string' }).max(max, `must be at most ${max} characters`);
  if (min > 0) s = s.min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`);
  return s;
};
const num = (o: { min?: number; max?: number; gt?: number; int?: boolean }) => {
  let n = z.number({ error: o.int ? 'must be an integer' : 'must be a number' });
  if (o.int) n = n.int('must be an integer');
  if (o.gt !== undefined) n = n.gt(o.gt, `must be greater than ${o.gt}`);
  if (o.min !== undefined) n = n.min(o.min, `must be at least ${o.min}`);
  if (o.max !== undefined) n = n.max(o.max, `must be at most ${o.max}`);
  return n;
};
const oneOf = (values: readonly [string, ...string[]], norm: (s: string) => string) =>
  z.string({ error: `must be one of: ${values.join(', ')}` }).transform(norm)
    .pipe(z.enum(values, { error: `must be one of: ${values.join(', ')}` }));
const lower = (s: string) => s.trim().toLowerCase();

const f = (schema: z.ZodType, kind: Kind, extra: { required?: boolean; default?: unknown } = {}): Field => ({ schema, kind, ...extra });
const req = { required: true };

const MAX_TEXT = 64 * 1024;
const MAX_PROMPT = 100_000;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const uuidField = f(z.string({ error: 'must be a UUID' }).refine(isUuid, 'must be a UUID'), 'text', req);
const pathField = f(text(512, 1), 'text', req);
const urlText = text(2048, 1).refine((s) => {
  if (!URL.canParse(s)) return false;
  const p = new URL(s).protocol;
  return p === 'http:' || p === 'https:';
}, 'must be an absolute http or https URL');
const headers = z.record(
  z.string().min(1, 'header names must not be empty').max(256, 'header names must be at most 256 characters')
    .regex(HEADER_NAME, 'header names must be HTTP tokens'),
  z.string({ error: 'must be a string' }).max(8192, 'must be at most 8192 characters')
    .refine((v) => !/[\r\n\0]/.test(v), 'must not contain line breaks or NUL'),
  { error: 'must be an object of header names to strings' },
).refine((h) => Object.keys(h).length <= 50, 'must have at most 50 headers');
const namespace = f(text(128, 1).regex(/^[A-Za-z0-9_.:-]+$/, 'may only contain letters, digits and _ . : -'), 'text', { default: 'default' });
const memoryKey = f(text(256, 1), 'text', req);
const jsonObject = z.record(z.string(), z.unknown(), { error: 'must be an object' });

const summary = z.unknown().superRefine((v, ctx) => {
  if (typeof v === 'string') {
    if (v.length === 0) ctx.addIssue({ code: 'custom', message: 'must not be empty' });
    else if (v.length > 2000) ctx.addIssue({ code: 'custom', message: 'must be at most 2000 characters' });
  } else if (!isPlainObject(v)) {
    ctx.addIssue({ code: 'custom', message: 'must be a string or an object' });
  }
});

const bool = z.boolean({ error: 'must be true or false' });
const chainText = text(100, 1);
const evmAddress = text(42, 42).regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 20-byte 0x-hex address');
/** An amount in the native unit ("0.5") or 0x-hex wei. */
const nativeAmount = text(100, 1).regex(/^((0|[1-9][0-9]{0,59})(\.[0-9]{1,18})?|0x[0-9a-fA-F]{1,64})$/, 'must be a decimal amount (e.g. "0.5") or 0x-hex wei');
const decimalAmount = text(100, 1).regex(/^(0|[1-9][0-9]{0,59})(\.[0-9]{1,36})?$/, 'must be a decimal amount, e.g. "0.5"');

const NOTIFY_CHANNELS = ['webhook', 'email', 'slack', 'discord'] as const;
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
const MEMORY_TIERS = ['scratch', 'durable', 'semantic'] as const;
const CHARSET_NAMES = Object.keys(CHARSETS) as [string, ...string[]];

/** A model provider's name, folded to its protocol (`ollama` → `openai`). */
const providerName = z.string({ error: 'must be a string' }).transform((v, ctx) => {
  const protocol = protocolOf(v);
  if (protocol === null) ctx.addIssue({ code: 'custom', message: `must be one of: ${PROVIDER_NAMES.join(', ')}` });
  return protocol ?? v;
});
/** The vault secret holding a step's provider key; read as the automation's agent at run time. */
const keySecret = z.object({
  vault_id: z.string({ error: 'must be a UUID' }).refine(isUuid, 'must be a UUID'),
  path: text(512, 1).refine((v) => !v.includes('{{'), 'must be written out, not a template'),
}, { error: 'must be {"vault_id": "<vault uuid>", "path": "<secret path>"}' });
const FIXED_AI_FIELDS = ['base_url', 'api_key_secret'] as const;

const RULES: Record<string, Rule> = {
  log: {
    fields: { message: f(text(MAX_TEXT), 'text'), prompt: f(text(MAX_TEXT), 'text') },
    check: (p) => {
      if (p.message === undefined && p.prompt === undefined) throw new StepParamError('message', 'is required (message or prompt)');
    },
  },
  http: {
    fields: {
      url: f(urlText, 'text', req),
      method: f(oneOf(HTTP_METHODS, (s) => s.trim().toUpperCase()), 'text', { default: 'GET' }),
      headers: f(headers, 'json'),
      body: f(z.unknown(), 'json'),
      timeout_secs: f(num({ int: true, min: 1, max: 30 }), 'number', { default: 10 }),
    },
  },
  wait: {
    fields: { duration_secs: f(num({ gt: 0, max: STEP_LIMITS.waitMaxSeconds }), 'number', req) },
  },
  notify: {
    fields: {
      channel: f(oneOf(NOTIFY_CHANNELS, lower), 'text', req),
      url: f(urlText, 'text'),
      to: f(text(254, 1).pipe(z.email({ error: 'must be an e-mail address' })), 'text'),
      subject: f(text(998), 'text'),
      message: f(text(MAX_TEXT), 'text'),
      payload: f(jsonObject, 'json'),
    },
    aliases: { webhook_url: 'url', text: 'message' },
    check: (p, given) => {
      if (p.message === undefined) throw new StepParamError('message', 'is required');
      if (!given('channel')) return; // a template: known only at run time
      if (p.channel === 'email') {
        if (p.to === undefined) throw new StepParamError('to', 'is required for the email channel');
      } else if (p.url === undefined) {
        throw new StepParamError('url', `is required for the ${String(p.channel)} channel`);
      }
    },
  },
  rotate_generate: {
    fields: {
      vault_id: uuidField,
      path: pathField,
      length: f(num({ int: true, min: STEP_LIMITS.rotateLength.min, max: STEP_LIMITS.rotateLength.max }), 'number', { default: STEP_LIMITS.rotateLength.default }),
      charset: f(oneOf(CHARSET_NAMES, lower), 'text', { default: 'alphanumeric' }),
    },
  },
  get_secret: {
    fields: { vault_id: uuidField, path: pathField, version: f(num({ int: true, min: 1 }), 'number') },
  },
  put_secret: {
    fields: {
      vault_id: uuidField,
      path: pathField,
      value: f(z.string({ error: 'must be a string' }), 'text', req),
      type: f(oneOf(SECRET_TYPES, lower), 'text'),
    },
  },
  memory_get: { fields: { namespace, key: memoryKey } },
  memory_put: {
    fields: {
      namespace,
      key: memoryKey,
      value: f(z.unknown(), 'json', req),
      tier: f(oneOf(MEMORY_TIERS, lower), 'text', { default: 'durable' }),
      ttl_secs: f(num({ int: true, min: 1, max: 31_536_000 }), 'number'),
    },
  },
  memory_search: {
    fields: {
      namespace,
      query: f(text(1000, 1), 'text', req),
      top_k: f(num({ int: true, min: 1, max: STEP_LIMITS.memorySearchTopK.max }), 'number', { default: STEP_LIMITS.memorySearchTopK.default }),
    },
  },
  approval_request: {
    fields: {
      action: f(text(100, 1), 'text', { default: 'automation_step' }),
      summary: f(summary, 'json', req),
      reason: f(text(2000), 'text'),
      risk_tier: f(num({ int: true, min: 1, max: 3 }), 'number', { default: 1 }),
      expires_in_secs: f(num({ int: true, min: 60, max: 604_800 }), 'number', { default: 86_400 }),
    },
  },
  submit_transaction: {
    fields: {
      chain: f(chainText, 'text', req),
      to: f(evmAddress, 'text', req),
      value: f(nativeAmount, 'text', req),
      data: f(text(256 * 1024).regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex bytes'), 'text'),
      gas_limit: f(num({ int: true, min: 21_000, max: 30_000_000 }), 'number'),
      token_mint: f(z.unknown(), 'json'),
      sign_only: f(bool, 'boolean', { default: false }),
      dry_run: f(bool, 'boolean', { default: false }),
      simulate_first: f(bool, 'boolean', { default: false }),
    },
    check: (p) => {
      if (p.token_mint !== undefined && p.token_mint !== null) {
        throw new StepParamError('token_mint', 'names a Solana or Tron token; on an EVM chain send the token contract as `to` and its transfer calldata as `data`');
      }
    },
  },
  swap: {
    fields: {
      chain: f(chainText, 'text', req),
      token_in: f(text(100, 1), 'text', req),
      token_out: f(text(100, 1), 'text', req),
      sell_amount: f(decimalAmount, 'text'),
      amount_usd: f(decimalAmount, 'text'),
      slippage_bps: f(num({ int: true, min: 0, max: 10_000 }), 'number'),
      dry_run: f(bool, 'boolean', { default: false }),
      simulate_first: f(bool, 'boolean', { default: true }),
    },
    check: (p) => {
      if ((p.sell_amount === undefined) === (p.amount_usd === undefined)) {
        throw new StepParamError('sell_amount', 'give exactly one of sell_amount (in token_in units) and amount_usd');
      }
    },
  },
  execute_intent: {
    aliases: { binding_id: 'binding', binding_name: 'binding' },
    fields: {
      binding: f(text(200, 1), 'text', req),
      intent_type: f(text(100, 1), 'text', { default: 'http_request' }),
      params: f(jsonObject, 'json', req),
    },
  },
  ai_generate: {
    fields: {
      prompt: f(text(MAX_PROMPT, 1), 'text', req),
      system_prompt: f(text(MAX_PROMPT), 'text'),
      model: f(text(200, 1), 'text'),
      provider: f(providerName, 'text'),
      max_tokens: f(num({ int: true, min: 1, max: STEP_LIMITS.aiMaxTokens }), 'number'),
      base_url: f(urlText, 'text'),
      api_key_secret: f(keySecret, 'json'),
    },
    // The key is sent to base_url: neither may come from a trigger's payload.
    check: (p, given) => {
      for (const k of FIXED_AI_FIELDS) {
        if (p[k] !== undefined && !given(k)) throw new StepParamError(k, 'must be written out, not a template: the provider key is sent there');
      }
    },
  },
};

// ---- checking -----------------------------------------------------------------------------------

const isTemplate = (v: unknown) => typeof v === 'string' && v.includes('{{');
const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Run mode: templates produce text (or parsed JSON); turn it into what the field expects. */
function coerce(v: unknown, kind: Kind): unknown {
  if (kind === 'number' && typeof v === 'string' && NUMERIC.test(v.trim())) return Number(v.trim());
  if (kind === 'boolean' && typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (t === 'true') return true;
    if (t === 'false') return false;
  }
  if (kind === 'text') {
    // A template that named a number, or an object that came back parsed from JSON text.
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (typeof v === 'object' && v !== null) return JSON.stringify(v);
  }
  return v;
}

/** Whether `type` has parameter rules here (`condition` and the later types do not). */
export const hasParamRules = (type: string): boolean => Object.hasOwn(RULES, type);

/**
 * `params` checked for a step of `type` (canonical), with defaults applied and aliases folded.
 * Throws StepParamError naming the first parameter that does not fit. A type without rules
 * (condition: its parser checks it; later types) gets its params back as given.
 */
export function checkStepParams(type: string, params: Params, mode: ParamMode): Params {
  const out: Params = { ...params };
  const rule = RULES[type];
  if (!rule || !Object.hasOwn(RULES, type)) return out;
  for (const [alias, canonical] of Object.entries(rule.aliases ?? {})) {
    if (out[alias] === undefined) continue;
    if (out[canonical] === undefined || out[canonical] === null) out[canonical] = out[alias];
    delete out[alias];
  }
  for (const [name, field] of Object.entries(rule.fields)) {
    let v = out[name];
    // JSON null means "not given", except where any JSON value (null included) is the parameter.
    if (v === null && field.kind !== 'json') { delete out[name]; v = undefined; }
    if (v === undefined) {
      if (field.required) throw new StepParamError(name, 'is required');
      if (field.default !== undefined) out[name] = field.default;
      continue;
    }
    if (mode === 'definition' && isTemplate(v)) continue;
    if (mode === 'run') v = coerce(v, field.kind);
    const r = field.schema.safeParse(v);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      const sub = issue.path.map(String).join('.');
      throw new StepParamError(sub ? `${name}.${sub}` : name, issue.message);
    }
    out[name] = r.data;
  }
  rule.check?.(out, (k) => out[k] !== undefined && !(mode === 'definition' && isTemplate(out[k])));
  return out;
}
