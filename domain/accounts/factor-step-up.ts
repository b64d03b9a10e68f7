// The step-up for adding or removing a sign-in factor (passkeys, mobile devices): once the account
// has a second factor (TOTP, a passkey or a mobile device), only a `rat_` token made with a second
// factor will do, since the new factor must not be addable with the password alone; while it has
// only a password, the password or any rat_ token; an account with neither (Google only, no
// factor yet) has nothing to re-confirm with.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccountRow } from './user-repository.ts';
import type { ReauthPurpose, StepUp } from './step-up.ts';
import { unauthorized } from '../errors.ts';
import { SECOND_FACTOR_METHODS } from './step-up.ts';
import { passkeysOf } from './passkey-repository.ts';
import { totpOf } from './mfa-repository.ts';
import { countDevices } from './mobile-device-repository.ts';

/** Whether the account has TOTP on, a passkey or a mobile device. */
export async function hasSecondFactor(em: EntityManager, userId: string): Promise<boolean> {
  if ((await totpOf(em, userId))?.enabled_at != null) return true;
  if ((await passkeysOf(em, userId)).length > 0) return true;
  return (await countDevices(em, userId)) > 0;
}

/** Checks X-Auth-Confirm (`confirm`) for a factor change, or throws the problem to answer with. */
export async function confirmFactorChange(stepUp: StepUp, em: EntityManager, user: AccountRow, confirm: string | undefined, purpose: ReauthPurpose): Promise<void> {
  const strong = await hasSecondFactor(em, user.id);
  if (!strong && !user.password_hash) return;
  await stepUp.confirm(em, user, confirm, strong
    ? { purpose, methods: SECOND_FACTOR_METHODS, password: false, wrong: () => unauthorized(`X-Auth-Confirm: a rat_ token for ${purpose} made with a second factor: TOTP, a passkey or a mobile device (POST /v1/auth/reauth)`) }
    : { purpose, wrong: () => unauthorized(`X-Auth-Confirm: the account password, or a rat_ token for ${purpose} (POST /v1/auth/reauth)`) });
}
