// The pure pieces of execution bindings: the canonical request path (traversal in every spelling
// refused), path patterns, guardrail decisions, the outbound request a binding builds and the
// redaction of a credential from an answer.
import fc from 'fast-check';
import { canonicalRequestPath, compilePathPattern, pathAllowed, type RequestPath } from '../../domain/bindings/request-path.ts';
import { checkGuardrails, DEFAULT_METHODS } from '../../domain/bindings/guardrails.ts';
import { buildHttpRequest, canonicalBaseUrl, credentialProblem } from '../../domain/bindings/http-request.ts';
import { credentialForms, redactHeaders, redactText, REDACTED } from '../../domain/bindings/redaction.ts';
import { httpConfigSchema, type HttpConfig } from '../../domain/bindings/binding-config.ts';
import { parseExemptions, NO_EXEMPTIONS } from '../../domain/net/outbound/index.ts';
import { Problem } from '../../domain/errors.ts';

const canon = (raw: string): RequestPath => {
  const v = canonicalRequestPath(raw);
  if (!v.ok) throw new Error(`${raw}: ${v.reason}`);
  return v.path;
};
const refused = (raw: string) => canonicalRequestPath(raw).ok === false;

describe('canonical request path', () => {
  test('plain paths are decoded once and re-encoded canonically', () => {
    expect(canon('/v1/items')).toEqual({ segments: ['v1', 'items'], trailingSlash: false, encoded: '/v1/items' });
    expect(canon('v1/items/')).toEqual({ segments: ['v1', 'items'], trailingSlash: true, encoded: '/v1/items/' });
    expect(canon('/')).toEqual({ segments: [], trailingSlash: false, encoded: '/' });
    expect(canon('/a%20b/%61dmin').segments).toEqual(['a b', 'admin']);
    expect(canon('/a%20b/%61dmin').encoded).toBe('/a%20b/admin');
    expect(canon('/models/gpt:generate/user@x').encoded).toBe('/models/gpt:generate/user@x');
    expect(canon('/caf%C3%A9').segments).toEqual(['café']);
    expect(canon('/a+b').encoded).toBe('/a%2Bb');
  });

  test.each([
    '/public/../admin', '/public/./x', '..', '/..', '/public/..', '/public/%2e%2e/admin', '/public/%2E%2E/admin', '/public/.%2e/admin',
    '/public/%2e/admin', '/public/..%2fadmin', '/public/%2fadmin', '/public/%2Fadmin', '/public//admin', '//evil.example/x', '//',
    '/public\\..\\admin', '/public/%5c..%5cadmin', '/public/%5Cadmin', '/public/..;/admin', '/public/.;x/admin', '/public/;x/admin',
    '/public/%252e%252e/admin', '/public/%25252e/admin', '/public/\uff0e\uff0e/admin', '/public/%EF%BC%8E%EF%BC%8E/admin',
    '/public/%ef%bc%8f/admin', '/public/%c0%ae%c0%ae/admin', '/public/%zz', '/public/%2', '/public/a%00b', '/public/%0d%0aX: y',
    '/public/a b', '/public/a\tb', '/public?x=1', '/public#frag', '', '/...',
  ])('refuses %j', (raw) => {
    expect(refused(raw)).toBe(true);
  });

  test('property: whatever is accepted has no dot, empty or slash-bearing segment and is stable', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('a', '.', '/', '%', '2', 'e', 'E', 'f', 'F', '5', 'c', ';', '\\', '\uff0e') , maxLength: 24 }), (raw) => {
      const v = canonicalRequestPath(raw);
      if (!v.ok) return;
      for (const s of v.path.segments) {
        expect(s).not.toBe('');
        expect(/^\.+$/.test(s.normalize('NFKC').split(';')[0]!) || s.normalize('NFKC').split(';')[0] === '').toBe(false);
        expect(/[/\\]/.test(s)).toBe(false);
      }
      // Canonical is a fixed point: what is sent reads back as the same segments.
      const again = canonicalRequestPath(v.path.encoded);
      expect(again.ok && again.path.segments).toEqual(v.path.segments);
      // And a URL parser keeps it as it is: nothing is resolved away before it is sent.
      expect(new URL(`https://api.example.com/base${v.path.encoded}`).pathname).toBe(`/base${v.path.encoded}`);
    }), { numRuns: 2000 });
  });
});

describe('path patterns', () => {
  const allowed = (patterns: string[], raw: string) => pathAllowed(patterns, canon(raw));

  test('segment globs: * one segment, ** any depth, literal text is decoded', () => {
    expect(allowed(['/public/**'], '/public')).toBe(true);
    expect(allowed(['/public/**'], '/public/a/b')).toBe(true);
    expect(allowed(['/public/**'], '/private/a')).toBe(false);
    expect(allowed(['/users/*'], '/users/42')).toBe(true);
    expect(allowed(['/users/*'], '/users/42/keys')).toBe(false);
    expect(allowed(['/users/*.json'], '/users/42.json')).toBe(true);
    expect(allowed(['/public/**'], '/%70ublic/x')).toBe(true); // the server reads `public`
    expect(allowed(['/items'], '/items/')).toBe(true); // one trailing slash is not a segment
    expect(allowed(['/'], '/')).toBe(true);
    expect(allowed(['/'], '/x')).toBe(false);
    expect(allowed(['/**'], '/')).toBe(true);
    expect(allowed(['/a', '/b/**'], '/b/c')).toBe(true);
    expect(allowed(['/Public/**'], '/public/x')).toBe(false); // case-sensitive
  });

  test.each(['', '/a/../b', '/a//b', '/a/%2e', '/a?b', '/a#b', '/a\\b', '/a/**x', '/a/./b', '/x/..;'])('refuses the pattern %j', (p) => {
    expect(compilePathPattern(p).ok).toBe(false);
  });

  test('no exponential blow-up on repeated ** segments', () => {
    const pattern = `/${Array.from({ length: 30 }, () => '**/a').join('/')}/b`;
    const path = canon(`/${Array.from({ length: 60 }, () => 'a').join('/')}`);
    expect(pathAllowed([pattern], path)).toBe(false);
  });
});

describe('guardrails', () => {
  const config: HttpConfig = { base_url: 'https://api.example.com' };
  const rules = (c: Partial<HttpConfig> = {}, binding = {}, agent = {}) => ({ config: { ...config, ...c }, binding, agent });

  test('only GET and everything under the base URL without lists', () => {
    expect(DEFAULT_METHODS).toEqual(['GET']);
    expect(checkGuardrails(rules(), 'GET', canon('/any/thing'), 0)).toBeNull();
    const r = checkGuardrails(rules(), 'DELETE', canon('/x'), 0);
    expect(r?.status).toBe(403);
    expect(r?.violation.reason_code).toBe('method_not_allowed');
  });

  test('every list that is set applies, and the refusal names it', () => {
    const r1 = checkGuardrails(rules({ allowed_methods: ['GET', 'POST'] }, { allowed_methods: ['GET'] }), 'POST', canon('/x'), 0);
    expect(r1?.detail).toMatch(/^guardrails\.allowed_methods: method POST/);
    const r2 = checkGuardrails(rules({}, {}, { allowed_methods: ['GET'] }), 'PUT', canon('/x'), 0);
    expect(r2?.detail).toMatch(/^execution_guardrails\.allowed_methods/);
    const r3 = checkGuardrails(rules({ allowed_paths: ['/v1/**'] }, { allowed_paths: ['/v1/public/**'] }), 'GET', canon('/v1/private'), 0);
    expect(r3?.detail).toMatch(/^guardrails\.allowed_paths: path \/v1\/private is outside/);
    expect(r3?.violation.reason_code).toBe('path_not_allowed');
  });

  test('body size: the smallest limit wins, 413', () => {
    expect(checkGuardrails(rules({}, { max_body_bytes: 10 }), 'GET', canon('/'), 10)).toBeNull();
    const r = checkGuardrails(rules({}, { max_body_bytes: 100 }, { max_body_bytes: 10 }), 'GET', canon('/'), 11);
    expect(r?.status).toBe(413);
    expect(r?.violation).toEqual({ reason_code: 'body_too_large', limit: 10, attempted: 11 });
  });
});

describe('the outbound request', () => {
  const exempt = parseExemptions(['127.0.0.0/8']);

  test('base URLs: https, or http to an exempted address literal; private addresses refused; canonical form', () => {
    expect(canonicalBaseUrl('https://api.example.com/v2/', NO_EXEMPTIONS)).toEqual({ ok: true, url: 'https://api.example.com/v2' });
    expect(canonicalBaseUrl('https://API.example.com', NO_EXEMPTIONS)).toEqual({ ok: true, url: 'https://api.example.com' });
    expect(canonicalBaseUrl('http://127.0.0.1:8080', exempt)).toEqual({ ok: true, url: 'http://127.0.0.1:8080' });
    for (const bad of ['http://api.example.com', 'https://10.0.0.1', 'https://192.168.1.1/x', 'https://169.254.169.254', 'http://127.0.0.1',
      'https://localhost', 'https://user:pw@api.example.com', 'https://api.example.com/?a=1', 'https://api.example.com/#x', 'ftp://api.example.com']) {
      expect(canonicalBaseUrl(bad, NO_EXEMPTIONS).ok).toBe(false);
    }
  });

  const cfg = (c: Partial<HttpConfig>): HttpConfig => httpConfigSchema.parse({ base_url: 'https://api.example.com/v2', ...c });
  const call = { method: 'GET' as const, path: canon('/items/1'), query: { q: 'x y' } };

  test('each auth type puts the credential where it says, last', () => {
    const cred = 'sk_live_0123456789';
    const bearer = buildHttpRequest(cfg({ headers: { 'X-Static': 's' } }), call, cred);
    expect(bearer.request.url).toBe('https://api.example.com/v2/items/1?q=x+y');
    expect(bearer.request.headers).toEqual({ 'x-static': 's', authorization: `Bearer ${cred}` });
    const header = buildHttpRequest(cfg({ auth: { type: 'header', name: 'X-Api-Key', prefix: 'Token ' } }), call, cred);
    expect(header.request.headers?.['x-api-key']).toBe(`Token ${cred}`);
    const query = buildHttpRequest(cfg({ auth: { type: 'query', name: 'api_key' } }), call, cred);
    expect(query.request.url).toBe(`https://api.example.com/v2/items/1?q=x+y&api_key=${cred}`);
    const basic = buildHttpRequest(cfg({ auth: { type: 'basic', username: 'me' } }), call, cred);
    expect(basic.request.headers?.authorization).toBe(`Basic ${Buffer.from(`me:${cred}`).toString('base64')}`);
    expect(basic.onWire).toContain(Buffer.from(`me:${cred}`).toString('base64'));
    expect(buildHttpRequest(cfg({}), call, null).request.headers).toEqual({});
  });

  test('the caller cannot replace or shadow what the binding sets', () => {
    const expect400 = (f: () => unknown, field: string) => {
      try { f(); } catch (e) { expect(e).toBeInstanceOf(Problem); expect((e as Problem).status).toBe(400); expect((e as Problem).detail).toContain(field); return; }
      throw new Error('expected a 400');
    };
    expect400(() => buildHttpRequest(cfg({}), { ...call, headers: { Authorization: 'Bearer mine' } }, 'sk_live_0123456789'), 'params.headers.Authorization');
    expect400(() => buildHttpRequest(cfg({ headers: { 'X-Static': 's' } }), { ...call, headers: { 'x-static': 'o' } }, null), 'params.headers.x-static');
    expect400(() => buildHttpRequest(cfg({ auth: { type: 'query', name: 'api_key' } }), { ...call, query: { api_key: 'x' } }, 'sk_live_0123456789'), 'params.query.api_key');
  });

  test('unusable credentials are named without being shown', () => {
    expect(credentialProblem('short')).toMatch(/shorter than 8/);
    expect(credentialProblem('a-long-credential\nX-Injected: 1')).toMatch(/control characters/);
    expect(credentialProblem('a-long-credential')).toBeNull();
  });
});

describe('redaction', () => {
  const cred = 'sk_live_A+b/c=d?e&f g"h\\i';

  test('every predictable spelling is replaced and counted', () => {
    const b = Buffer.from(cred);
    const forms = credentialForms(cred);
    const spellings = [cred, JSON.stringify(cred).slice(1, -1), encodeURIComponent(cred), encodeURIComponent(cred).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
      new URLSearchParams({ k: cred }).toString().slice(2), b.toString('base64'), b.toString('base64url'),
      Buffer.concat([Buffer.from('{'), b, Buffer.from('}')]).toString('base64'),
      Buffer.concat([Buffer.from('{"'), b, Buffer.from('"}')]).toString('base64url')];
    for (const s of spellings) {
      const r = redactText(`before ${s} after`, forms);
      expect(r.count).toBeGreaterThanOrEqual(1);
      expect(r.text).toContain(REDACTED);
      for (const f of [cred, b.toString('base64').replace(/=+$/, ''), encodeURIComponent(cred)]) expect(r.text).not.toContain(f);
    }
  });

  test('property: no base64 of any text containing the credential keeps its core', () => {
    fc.assert(fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (pre, post) => {
      const text = Buffer.from(`${pre}${cred}${post}`).toString('base64');
      const r = redactText(text, credentialForms(cred));
      expect(r.count).toBeGreaterThanOrEqual(1);
    }));
  });

  test('headers: names and values', () => {
    const r = redactHeaders({ 'x-echo': `Bearer ${cred}`, [`x-${'k'}`]: 'fine' }, credentialForms(cred));
    expect(r.headers).toEqual({ 'x-echo': `Bearer ${REDACTED}`, 'x-k': 'fine' });
    expect(r.count).toBe(1);
  });
});
