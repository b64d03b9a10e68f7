// No step error carries a secret value out of its activity. What a step throws is recorded in
// Temporal history (the local activity's marker), written to the worker's log by the SDK and
// shown as the run's error; its text can quote what the step was given or got back (a host name
// built from a template, an outside service's answer). So before it leaves the activity, every
// spelling the service can predict of the run's secret values (domain/bindings/redaction.ts:
// as written, JSON-escaped, percent-encoded, base64) is masked in its message, stack trace,
// details and causes. The error keeps its class, type and retry flags: only its text changes.
import { ApplicationFailure } from '@temporalio/activity';
import { knownSecretForms } from '../bindings/redaction.ts';
import { REDACTED } from './engine/redaction.ts';

/** `e` with `secrets` masked (the same object when it is an Error; a thrown string is masked as text). */
export function redactStepError(e: unknown, secrets: readonly string[]): unknown {
  const forms = knownSecretForms(secrets.filter((s) => s !== ''));
  if (forms.length === 0) return e;
  const mask = (text: string): string => {
    let out = text;
    for (const f of forms) if (out.includes(f)) out = out.split(f).join(REDACTED);
    return out;
  };
  const deep = (v: unknown): unknown => {
    if (typeof v === 'string') return mask(v);
    if (Array.isArray(v)) return v.map(deep);
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x)]));
    }
    return v;
  };
  const seen = new Set<Error>();
  const walk = (x: unknown): void => {
    if (!(x instanceof Error) || seen.has(x)) return;
    seen.add(x);
    x.message = mask(x.message);
    if (typeof x.stack === 'string') x.stack = mask(x.stack);
    if (x instanceof ApplicationFailure && x.details) (x as { details: unknown }).details = deep(x.details);
    walk(x.cause);
  };
  if (typeof e === 'string') return mask(e);
  walk(e);
  return e;
}
