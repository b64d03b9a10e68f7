// Request paths as they are recorded (audit rows, a command's audit details): a path parameter
// that is a credential (a webhook trigger token, a share link id, an enrollment token) is masked.
// Which parameters those are is declared on the route (`secretParams`), so a new route form
// cannot slip past a pattern written for an older one. A path that no route took (404, 405, a
// CORS preflight) is masked by the route it resembles most, and where none fits, every segment
// that is not a literal segment of some route is masked: such paths are probes or typos, and may
// still carry a token.
import type { RouteDef } from './route.ts';

export const REDACTED_SEGMENT = '[redacted]';
const MAX_RECORDED_PATH = 512;

type Part = { literal: string } | { param: string; secret: boolean; rest: boolean };
type Template = { parts: Part[]; literals: number };

function compile(def: Pick<RouteDef, 'path' | 'secretParams'>): Template {
  const secret = new Set(def.secretParams ?? []);
  const parts = def.path.split('/').slice(1).map((seg): Part => {
    if (seg.startsWith(':')) return { param: seg.slice(1), secret: secret.has(seg.slice(1)), rest: false };
    if (seg.startsWith('*')) return { param: seg.slice(1), secret: secret.has(seg.slice(1)), rest: true };
    return { literal: seg };
  });
  return { parts, literals: parts.filter((p) => 'literal' in p).length };
}

/** The segments with the template's secret ones masked, or null when the template does not fit. */
function apply(t: Template, segments: readonly string[]): string[] | null {
  const out: string[] = [];
  for (let i = 0; i < t.parts.length; i++) {
    const part = t.parts[i]!;
    const seg = segments[i];
    if (seg === undefined) return null;
    if ('literal' in part) {
      if (seg !== part.literal) return null;
      out.push(seg);
    } else if (part.rest) {
      const rest = segments.slice(i);
      out.push(...(part.secret ? [REDACTED_SEGMENT] : rest));
      return out;
    } else {
      if (seg === '') return null;
      out.push(part.secret ? REDACTED_SEGMENT : seg);
    }
  }
  return segments.length === t.parts.length ? out : null;
}

const join = (segments: readonly string[]) => {
  const p = `/${segments.join('/')}`;
  return p.length > MAX_RECORDED_PATH ? `${p.slice(0, MAX_RECORDED_PATH)}…` : p;
};

export class PathRedactor {
  private readonly templates = new Map<RouteDef, Template>();
  private readonly vocabulary = new Set<string>();

  constructor(routes: readonly RouteDef[]) {
    for (const def of routes) {
      const t = compile(def);
      this.templates.set(def, t);
      for (const p of t.parts) if ('literal' in p) this.vocabulary.add(p.literal);
    }
  }

  /** `path` as it may be recorded; `route` is the route that took the request, when one did. */
  redact(path: string, route?: RouteDef): string {
    const segments = path.split('/').slice(1);
    const own = route && this.templates.get(route);
    if (own) {
      const out = apply(own, segments);
      if (out) return join(out);
    }
    let best: { out: string[]; literals: number } | null = null;
    for (const t of this.templates.values()) {
      if (best && t.literals <= best.literals) continue;
      const out = apply(t, segments);
      if (out) best = { out, literals: t.literals };
    }
    if (best) return join(best.out);
    return join(segments.map((s) => (s === '' || this.vocabulary.has(s) ? s : REDACTED_SEGMENT)));
  }
}
