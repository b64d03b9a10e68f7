// The pure parts of the password throttle (issue 8 §6): its keys and its answer. The schedule
// itself runs in SQL and is checked against the database in test/integration/login-throttle.test.ts.
import { createSecretKey, randomBytes } from 'node:crypto';
import { loginKey, reauthKey, tooManyAttempts } from '../../domain/accounts/attempt-throttle.ts';

const pepper = createSecretKey(randomBytes(32));

test('a login key is per e-mail (any case) and per address, and holds no address in clear', () => {
  const k = loginKey(pepper, 'Ada@Example.com', '203.0.113.7');
  expect(k).toEqual(loginKey(pepper, 'ada@example.com', '203.0.113.7'));
  expect(k.scope).toBe('login');
  expect(k.source).toBe('203.0.113.7');
  expect(k.subject).toMatch(/^[0-9a-f]{64}$/);
  expect(k.subject).not.toContain('ada');
  expect(loginKey(pepper, 'ada@example.com', '203.0.113.8').subject).toBe(k.subject);
  expect(loginKey(pepper, 'bob@example.com', '203.0.113.7').subject).not.toBe(k.subject);
  // Another deployment's pepper gives other keys.
  expect(loginKey(createSecretKey(randomBytes(32)), 'ada@example.com', '203.0.113.7').subject).not.toBe(k.subject);
});

test('the current-password key covers every address of one account', () => {
  expect(reauthKey('8f0e6c1e-4a8b-4f7e-9a51-1f2d3c4b5a69')).toEqual({ scope: 'reauth', subject: '8f0e6c1e-4a8b-4f7e-9a51-1f2d3c4b5a69', source: '*' });
});

test('a throttled attempt is a 429 whose Retry-After is whole seconds, rounded up, at least 1', () => {
  for (const [wait, s] of [[0.2, 1], [1, 1], [1.01, 2], [899.5, 900], [0, 1]] as const) {
    const p = tooManyAttempts(wait);
    expect(p.status).toBe(429);
    expect(p.headers['Retry-After']).toBe(String(s));
    expect(p.extras).toEqual({ retry_after: s });
    expect(p.detail).toContain(`${s} second`);
  }
});
