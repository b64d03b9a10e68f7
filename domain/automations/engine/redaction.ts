// Secret values a run read (get_secret) stay usable in later steps' templates, but what the run
// records (step_results, context) never holds them: the `value` of a get_secret output becomes
// `[redacted]`, and so does any other string in which one of the values appears (an http step
// that echoed it, a log message built from it). Steps whose parameters leave the run for places
// other people read may not be given such a value at all (DISCLOSING_STEPS). Workflow-safe: pure
// functions only.
import type { StepType } from '../spec/step-types.ts';

export const REDACTED = '[redacted]';

/** Values shorter than this are not searched for inside other strings (they would match noise). */
const MIN_EMBEDDED_LENGTH = 4;

export function redact(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  const embedded = secrets.filter((s) => s.length >= MIN_EMBEDDED_LENGTH);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (secrets.includes(v)) return REDACTED;
      let out = v;
      for (const s of embedded) if (out.includes(s)) out = out.split(s).join(REDACTED);
      return out;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) o[k] = walk(x);
      return o;
    }
    return v;
  };
  return walk(value);
}

/**
 * Steps whose parameters are kept or sent where people other than the run's readers see them:
 * agent memory, chat and e-mail (notify), a model provider (ai_generate), the approval queue and
 * its webhook event (approval_request), a public chain (submit_transaction, swap). A value read
 * by get_secret in the same run fails such a step instead of being disclosed. A credential may
 * still go where it is used: an http or execute_intent request, a put_secret.
 */
export const DISCLOSING_STEPS: readonly StepType[] = ['memory_put', 'notify', 'ai_generate', 'approval_request', 'submit_transaction', 'swap'];

/** The values that some string in `params` holds (as written, or JSON-escaped); params are serialized once. */
export function secretsIn(params: unknown, secrets: readonly string[]): string[] {
  if (secrets.length === 0) return [];
  const text = JSON.stringify(params) ?? '';
  return secrets.filter((v) => v !== '' && (text.includes(v) || text.includes(JSON.stringify(v).slice(1, -1))));
}
