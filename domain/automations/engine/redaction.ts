// Secret values a run read (get_secret) stay usable in later steps' templates, but what the run
// records (step_results, context) never holds them: the `value` of a get_secret output becomes
// `[redacted]`, and so does any other string in which one of the values appears (an http step
// that echoed it, a log message built from it). Workflow-safe: pure functions only.

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
