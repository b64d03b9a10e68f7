// The one cursor codec (domain/paging/cursor.ts): every list's cursor round-trips, and any other
// text decodes to null (the api's 400), never to a key the database would choke on, never a throw.
import fc from 'fast-check';
import { cursorCodec, isBigintText, isCursorText } from '../../domain/paging/cursor.ts';
import { secretListCursor } from '../../domain/secrets/secret-list.ts';
import { auditEventCursor } from '../../domain/audit/audit-query.ts';
import { deliveryCursor } from '../../domain/webhooks/webhook-commands.ts';
import { z } from 'zod';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const LISTS = [secretListCursor, auditEventCursor, deliveryCursor] as const;

test('each list round-trips its own keys', () => {
  fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 300 }).filter(isCursorText), (path) => {
    expect(secretListCursor.decode(secretListCursor.encode(path))).toBe(path);
  }));
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), fc.uuid(), (n, id) => {
    expect(auditEventCursor.decode(auditEventCursor.encode(String(n)))).toBe(String(n));
    expect(deliveryCursor.decode(deliveryCursor.encode([String(n), id]))).toEqual([String(n), id]);
  }));
});

test('the probe\'s cursors and their kin are refused, not passed on', () => {
  const refused = [
    'AA', // a NUL byte: the old secrets cursor handed it to Postgres (500)
    b64('\u0000'), b64('["secrets","a\u0000b"]'), b64('["secrets",""]'), b64('["secrets","\\ud800"]'),
    b64('["audit-events","9223372036854775808"]'), b64('["audit-events","-1"]'), b64('["audit-events",1]'),
    b64('["webhook-deliveries",["1","not-a-uuid"]]'), b64('["webhook-deliveries",["99999999999999999999","00000000-0000-0000-0000-000000000000"]]'),
    b64('seq:12'), b64('not json'), b64('{"k":"secrets"}'), b64('["secrets","a","b"]'),
    '!!!', 'a b', 'AAA=', `${b64('["secrets","a"]')}=`, 'x'.repeat(2049),
  ];
  for (const text of refused) for (const c of LISTS) expect(c.decode(text)).toBeNull();
  // Invalid UTF-8 is not decoded with replacement characters into some other key.
  expect(secretListCursor.decode(Buffer.concat([Buffer.from('["secrets","'), Buffer.from([0xff]), Buffer.from('"]')]).toString('base64url'))).toBeNull();
});

test('a cursor of one list is not a cursor of another', () => {
  const secrets = secretListCursor.encode('12');
  expect(auditEventCursor.decode(secrets)).toBeNull();
  expect(auditEventCursor.decode(auditEventCursor.encode('12'))).toBe('12');
  expect(deliveryCursor.decode(auditEventCursor.encode('12'))).toBeNull();
});

test('fuzz: any text decodes to null or to a key its schema accepts, and never throws', () => {
  const texts = fc.oneof(
    fc.string({ maxLength: 64 }),
    fc.base64String({ maxLength: 64 }).map((s) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')),
    fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b).toString('base64url')),
    fc.tuple(fc.constantFrom('secrets', 'audit-events', 'webhook-deliveries', 'other'), fc.jsonValue({ maxDepth: 2 }))
      .map((t) => b64(JSON.stringify(t))),
  );
  fc.assert(fc.property(texts, (text) => {
    const secret = secretListCursor.decode(text);
    if (secret !== null) expect(isCursorText(secret) && secret.length >= 1 && secret.length <= 1024).toBe(true);
    const seq = auditEventCursor.decode(text);
    if (seq !== null) expect(isBigintText(seq)).toBe(true);
    const delivery = deliveryCursor.decode(text);
    if (delivery !== null) expect(isBigintText(delivery[0]) && /^[0-9a-f-]{36}$/i.test(delivery[1])).toBe(true);
  }), { numRuns: 2000 });
});

test('a codec checks its key with its own schema', () => {
  const even = cursorCodec('even', z.number().int().refine((n) => n % 2 === 0));
  expect(even.decode(even.encode(4))).toBe(4);
  expect(even.decode(b64('["even",3]'))).toBeNull();
});
