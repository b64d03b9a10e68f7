// TOTP rules at fixed times (domain/accounts/totp.ts): the current step and one either side are
// accepted, nothing further; a step at or before the last one used is refused (no replay); only
// six digits count as a code; recovery codes are typed loosely; the sealed secret is bound to its user.
import { createSecretKey, randomBytes } from 'node:crypto';
import {
  TOTP_PERIOD_SECONDS, acceptedStep, newRecoveryCodes, newTotpSecret, normalizeRecoveryCode, openTotpSecret, otpauthUri, sealTotpSecret, totpCode,
} from '../../domain/accounts/totp.ts';

const T = 1_800_000_015; // inside step 60_000_000
const STEP = Math.floor(T / TOTP_PERIOD_SECONDS);
const secret = newTotpSecret();

test('a code is accepted in its own step and one step either side, with the step it belongs to', async () => {
  const code = await totpCode(secret, T);
  expect(await acceptedStep(secret, code, T, 0)).toBe(STEP);
  expect(await acceptedStep(secret, code, T - TOTP_PERIOD_SECONDS, 0)).toBe(STEP); // client clock ahead
  expect(await acceptedStep(secret, code, T + TOTP_PERIOD_SECONDS, 0)).toBe(STEP); // client clock behind
  expect(await acceptedStep(secret, code, T + 2 * TOTP_PERIOD_SECONDS, 0)).toBeNull();
  expect(await acceptedStep(secret, code, T - 2 * TOTP_PERIOD_SECONDS, 0)).toBeNull();
});

test('a step at or before the last one used is refused: no replay, no older code', async () => {
  const code = await totpCode(secret, T);
  expect(await acceptedStep(secret, code, T, STEP)).toBeNull();
  expect(await acceptedStep(secret, code, T, STEP - 1)).toBe(STEP);
  const next = await totpCode(secret, T + TOTP_PERIOD_SECONDS);
  expect(await acceptedStep(secret, next, T, STEP)).toBe(STEP + 1);
  const previous = await totpCode(secret, T - TOTP_PERIOD_SECONDS);
  expect(await acceptedStep(secret, previous, T, STEP)).toBeNull();
});

test('a wrong code, another secret\'s code and anything but six digits are refused', async () => {
  const code = await totpCode(secret, T);
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  expect(await acceptedStep(secret, wrong, T, 0)).toBeNull();
  expect(await acceptedStep(newTotpSecret(), code, T, 0)).toBeNull();
  for (const bad of ['', '12345', '1234567', `${code} `, 'abcdef']) expect(await acceptedStep(secret, bad, T, 0)).toBeNull();
});

test('the otpauth URI names the issuer and the account and carries the secret', () => {
  const uri = new URL(otpauthUri(secret, 'ada@example.com'));
  expect(uri.protocol).toBe('otpauth:');
  expect(decodeURIComponent(uri.pathname)).toContain('ada@example.com');
  expect(uri.searchParams.get('secret')).toBe(secret);
  expect(uri.searchParams.get('issuer')).toBe('1claw vault');
});

test('recovery codes: ten distinct, and typed in any case with any separators', () => {
  const codes = newRecoveryCodes();
  expect(codes).toHaveLength(10);
  expect(new Set(codes).size).toBe(10);
  for (const c of codes) expect(c).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
  expect(normalizeRecoveryCode(` ${codes[0]!.toUpperCase().replace('-', ' ')} `)).toBe(normalizeRecoveryCode(codes[0]!));
});

test('the sealed secret opens only under its key and for its user', () => {
  const key = createSecretKey(randomBytes(32));
  const sealed = sealTotpSecret(key, 'user-a', secret);
  expect(sealed.toString('latin1')).not.toContain(secret);
  expect(openTotpSecret(key, 'user-a', sealed)).toBe(secret);
  expect(() => openTotpSecret(key, 'user-b', sealed)).toThrow();
  expect(() => openTotpSecret(createSecretKey(randomBytes(32)), 'user-a', sealed)).toThrow();
});
