// The pino logger behind domain/log.ts: credentials never reach a line, at any depth; lines written
// while serving a request carry its request id and trace id; warnings and errors go to stderr.
import { createLogger, type LogDestinations } from '../../domain/log.ts';
import { censorFields, isSensitiveField } from '../../domain/observability/log-redaction.ts';
import { runInRequestScope, traceIdOf } from '../../domain/observability/request-scope.ts';

const MARKER = 'MARKER-7f3a9c-do-not-log';

function capture(): { dest: LogDestinations; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, dest: { out: { write: (s: string) => { out.push(s); } }, err: { write: (s: string) => { err.push(s); } } } };
}

describe('redaction', () => {
  test('a marker under any credential-like name, at any depth, in arrays too, never reaches the line', () => {
    const c = capture();
    const log = createLogger('debug', 'test', c.dest);
    log.info('with secrets', {
      password: MARKER, passphrase: MARKER, token: MARKER, secret: MARKER, key: MARKER,
      apiKey: MARKER, access_token: MARKER, webhook_secret: MARKER, PKCS11_PIN: MARKER, 'x-auth-token': MARKER,
      secret_value: MARKER, privateKey: MARKER, authorization: `Bearer ${MARKER}`,
      nested: { deeper: { deepest: { refreshToken: MARKER, list: [{ secretValue: MARKER }, { passwd: MARKER }] } } },
      request: { headers: { cookie: MARKER } },
      key_id: 'key-1', tokens_used: 12, secret_path: 'db/password', vault_id: 'v-1',
    });
    log.error('and on stderr', { level1: { level2: { level3: { level4: { level5: { api_key: MARKER } } } } } });
    const text = [...c.out, ...c.err].join('');
    expect(text).not.toContain(MARKER);
    const line = JSON.parse(c.out[0]!);
    expect(line).toMatchObject({ level: 'info', component: 'test', msg: 'with secrets', password: '[redacted]', key_id: 'key-1', tokens_used: 12, secret_path: 'db/password', vault_id: 'v-1' });
    expect(line.nested.deeper.deepest.list[0].secretValue).toBe('[redacted]');
    expect(typeof line.time).toBe('string');
  });

  test('the caller\'s object is left as it was; nothing to censor returns the same object', () => {
    const fields = { nested: { token: MARKER }, id: 'a' };
    const censored = censorFields(fields);
    expect(fields.nested.token).toBe(MARKER);
    expect(censored.nested.token).toBe('[redacted]');
    const clean = { id: 'a', nested: { count: 1 } };
    expect(censorFields(clean)).toBe(clean);
  });

  test.each([
    ['password', true], ['newPassword', true], ['api_key', true], ['AI_API_KEY', true], ['signing-key', true], ['secretValue', true],
    ['key_id', false], ['keyVersion', false], ['tokens_used', false], ['secret_path', false], ['requestId', false],
  ])('%s is censored: %s', (name, censored) => {
    expect(isSensitiveField(name)).toBe(censored);
  });
});

describe('request scope', () => {
  test('lines inside a request carry its request id and trace id; lines outside carry neither', async () => {
    const c = capture();
    const log = createLogger('info', 'api', c.dest);
    await runInRequestScope({ requestId: 'req-1', traceId: '0af7651916cd43dd8448eb211c80319c' }, async () => {
      await new Promise((r) => setImmediate(r));
      log.info('inside');
      log.warn('a warning inside', { request_id: 'req-1' });
    });
    log.info('outside');
    const [inside, outside] = c.out.map((l) => JSON.parse(l));
    expect(inside).toMatchObject({ request_id: 'req-1', trace_id: '0af7651916cd43dd8448eb211c80319c', msg: 'inside' });
    expect(outside).not.toHaveProperty('request_id');
    expect(outside).not.toHaveProperty('trace_id');
    // A field the caller passes itself is not written twice.
    expect(c.err[0]!.match(/"request_id"/g)).toHaveLength(1);
  });

  test('levels below LOG_LEVEL are not written; warn and error go to stderr', () => {
    const c = capture();
    const log = createLogger('warn', 'x', c.dest);
    log.debug('no');
    log.info('no');
    log.warn('yes');
    log.error('yes too');
    expect(c.out).toEqual([]);
    expect(c.err.map((l) => JSON.parse(l).level)).toEqual(['warn', 'error']);
  });

  test('traceparent: the trace id of a well-formed header only', () => {
    expect(traceIdOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(traceIdOf('00-00000000000000000000000000000000-b7ad6b7169203331-01')).toBeUndefined();
    expect(traceIdOf('garbage')).toBeUndefined();
    expect(traceIdOf(undefined)).toBeUndefined();
  });
});
