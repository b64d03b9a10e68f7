// TOTP as the tests' authenticator app. The service checks codes against the real clock, so a
// test uses at most two steps per account: codeNow turns TOTP on, codeNext (accepted as one step
// of drift, and newer than any code used so far) is the one further code.
import { call, type Account } from './api.ts';
import { TOTP_PERIOD_SECONDS, totpCode } from '../../domain/accounts/totp.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);
export const codeNow = (secret: string) => totpCode(secret, nowSeconds());
export const codeNext = (secret: string) => totpCode(secret, nowSeconds() + TOTP_PERIOD_SECONDS);

/** Turns TOTP on for `a` with a code of the current step; its secret and recovery codes. */
export async function enableTotp(a: Account): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await call('POST', '/v1/auth/mfa/setup', { token: a.token });
  expect(setup.status).toBe(200);
  const secret = setup.body.secret as string;
  const done = await call('POST', '/v1/auth/mfa/verify-setup', { token: a.token, body: { code: await codeNow(secret) } });
  expect(done.status).toBe(200);
  return { secret, recoveryCodes: done.body.recovery_codes };
}
