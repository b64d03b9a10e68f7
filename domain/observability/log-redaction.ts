// No secret, token, key, password or passphrase reaches a log line, whatever the depth of the
// field that holds it. Callers are asked to pass identifiers only; this is the net under them.
// A field is censored by its name: its last word (camelCase, snake_case, kebab-case and dotted
// names are split into words) names a credential (`apiKey`, `access_token`, `webhook_secret`,
// `PKCS11_PIN`), or it is the value of a secret (`secret_value`). Ids and counts of such things
// stay readable (`key_id`, `tokens_used`).

export const REDACTED = '[redacted]';

const CREDENTIAL_WORDS = new Set([
  'secret', 'secrets', 'token', 'key', 'keys', 'password', 'passwd', 'passphrase', 'pin', 'authorization',
  'cookie', 'credential', 'credentials', 'plaintext', 'mnemonic', 'seed',
]);
const SECRET_PARTS = new Set(['value', 'values', 'material', 'data']);
const MAX_DEPTH = 8;

const sensitiveCache = new Map<string, boolean>();

/** Whether a field of this name is censored. */
export function isSensitiveField(name: string): boolean {
  let hit = sensitiveCache.get(name);
  if (hit !== undefined) return hit;
  const words = name.replace(/([a-z\d])([A-Z])/g, '$1 $2').toLowerCase().split(/[\s_.\-]+/).filter((w) => w !== '');
  const last = words[words.length - 1] ?? '';
  hit = CREDENTIAL_WORDS.has(last) || (SECRET_PARTS.has(last) && words.includes('secret'));
  if (sensitiveCache.size < 10_000) sensitiveCache.set(name, hit);
  return hit;
}

/** `fields` with every sensitive field censored; the same object when there was nothing to censor. */
export function censorFields<T extends Record<string, unknown>>(fields: T): T {
  return censor(fields, 0) as T;
}

function censor(v: unknown, depth: number): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const c = censor(v[i], depth + 1);
      if (c !== v[i]) (out ??= v.slice())[i] = c;
    }
    return out ?? v;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v; // Dates, Buffers, errors: pino's serializers
  let out: Record<string, unknown> | undefined;
  for (const [k, val] of Object.entries(v)) {
    const c = isSensitiveField(k) && val !== null && val !== undefined ? REDACTED : censor(val, depth + 1);
    if (c !== val) (out ??= { ...(v as Record<string, unknown>) })[k] = c;
  }
  return out ?? v;
}
