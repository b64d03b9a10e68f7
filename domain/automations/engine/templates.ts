// `{{ path }}` templates in step parameters (spec §2.14). WORKFLOW-SAFE: runs in the Temporal
// workflow sandbox, so it imports nothing but types and stays deterministic.
//
// A path is walked through own data properties only (never `__proto__`, `constructor`,
// `prototype`, never a getter), and nothing is ever evaluated as code (STACK-NOTES). Resolution
// is a single pass over the text as written: what a substitution inserts is never scanned again,
// so a webhook payload holding `{{steps.0.value}}` stays literal text.
//
// Bounds: a string over MAX_TEMPLATE_INPUT, with more than MAX_TEMPLATES_PER_STRING templates, or
// whose result would exceed MAX_TEMPLATE_OUTPUT throws TemplateError (the step fails with that
// message) rather than running with half-resolved parameters. Values nest at most MAX_DEPTH deep.
import type { TemplateScope } from '../spec/step-types.ts';

export const MAX_TEMPLATE_INPUT = 1024 * 1024;
export const MAX_TEMPLATE_OUTPUT = 4 * 1024 * 1024;
export const MAX_TEMPLATES_PER_STRING = 1000;
const MAX_DEPTH = 64;

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** `{{`, optional spaces, a path without braces, optional spaces, `}}`. */
const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const ROOTS = new Set(['steps', 'webhook_payload', 'trigger', '_event', 'input']);
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const INDEX = /^\d+$/;
const MISSING = Symbol('missing');

/** The value at `segment` of `cur`: own data properties and array indexes only. */
function child(cur: unknown, segment: string): unknown {
  if (segment === '' || FORBIDDEN.has(segment) || typeof cur !== 'object' || cur === null) return MISSING;
  if (Array.isArray(cur)) {
    if (!INDEX.test(segment)) return MISSING;
    const i = Number(segment);
    return i < cur.length ? cur[i] : MISSING;
  }
  const d = Object.getOwnPropertyDescriptor(cur, segment);
  return d && 'value' in d ? d.value : MISSING;
}

function rootValue(root: string, scope: TemplateScope): unknown {
  switch (root) {
    case 'steps': return scope.steps;
    // Aliases of each other: whichever the caller filled.
    case 'webhook_payload': return scope.webhook_payload !== undefined ? scope.webhook_payload : scope.trigger;
    case 'trigger': return scope.trigger !== undefined ? scope.trigger : scope.webhook_payload;
    case '_event': return scope._event;
    case 'input': return scope.input;
    default: return MISSING;
  }
}

/** The value a path names, or MISSING. `path` is the template's inside, already trimmed. */
function lookupPath(path: string, scope: TemplateScope): unknown {
  const segments = path.split('.').map((s) => s.trim());
  let cur = rootValue(segments[0]!, scope);
  for (let i = 1; i < segments.length && cur !== MISSING; i++) cur = child(cur, segments[i]!);
  return cur === undefined ? MISSING : cur;
}

/** Text for a substituted value: null and missing → '', objects and arrays → JSON. */
function asText(v: unknown): string {
  if (v === MISSING || v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object') {
    try { return JSON.stringify(v) ?? ''; } catch { return ''; }
  }
  return String(v);
}

/**
 * Substitutes the templates of one string, as text, in a single pass. Templates whose root is
 * not one of steps, webhook_payload, trigger, _event, input are left as written (they may be
 * meant for another system, e.g. a mail merge field). Returns null when nothing was substituted.
 */
function substitute(s: string, scope: TemplateScope): string | null {
  if (!s.includes('{{')) return null;
  if (s.length > MAX_TEMPLATE_INPUT) throw new TemplateError(`a templated string is longer than ${MAX_TEMPLATE_INPUT} characters`);
  let out = '';
  let last = 0;
  let count = 0;
  let replaced = false;
  for (const m of s.matchAll(TEMPLATE)) {
    if (++count > MAX_TEMPLATES_PER_STRING) throw new TemplateError(`a string holds more than ${MAX_TEMPLATES_PER_STRING} templates`);
    const path = m[1]!;
    const root = path.split('.')[0]!.trim();
    if (!ROOTS.has(root)) continue;
    out += s.slice(last, m.index) + asText(lookupPath(path, scope));
    last = m.index + m[0].length;
    replaced = true;
    if (out.length > MAX_TEMPLATE_OUTPUT) throw new TemplateError(`a templated string grows beyond ${MAX_TEMPLATE_OUTPUT} characters`);
  }
  return replaced ? out + s.slice(last) : null;
}

/** `s` with its templates substituted as text; never parsed back (for conditions). */
export function resolveTemplateString(s: string, scope: TemplateScope): string {
  return substitute(s, scope) ?? s;
}

function resolveString(s: string, scope: TemplateScope): unknown {
  const out = substitute(s, scope);
  if (out === null) return s;
  // Spec: a substituted string that starts with { or [ is parsed back as JSON (when it is JSON).
  const t = out.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try { return JSON.parse(out); } catch { /* stays text */ }
  }
  return out;
}

function walk(value: unknown, scope: TemplateScope, depth: number): unknown {
  if (typeof value === 'string') return resolveString(value, scope);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) throw new TemplateError(`step parameters nest deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((v) => walk(v, scope, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty: a `__proto__` key stays an ordinary own key instead of setting the prototype.
    Object.defineProperty(out, k, { value: walk(v, scope, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * `value` with every `{{ path }}` in its strings replaced (objects and arrays walked, keys kept).
 * Paths: `steps.<index|name>.<field…>`, `webhook_payload.<path>`, `trigger.<path>` (its alias),
 * `_event.<path>`, `input.<path>`; numeric segments index arrays. A missing path or null gives
 * '', an object or array gives its JSON text; a string that starts with `{` or `[` after
 * substitution is parsed back as JSON if it parses. Throws TemplateError past the bounds above.
 */
export function resolveTemplates(value: unknown, scope: TemplateScope): unknown {
  return walk(value, scope, 0);
}
