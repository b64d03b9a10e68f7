// The confirmation every use of a treasury wallet's key asks for (send, export, a Safe signature):
// X-Auth-Confirm with the account password or a rat_ token for the purpose (domain/accounts/step-up.ts).
// An account without a password (Google sign-in) can only confirm with a rat_ token: without one
// it is told how to get one (403) rather than asked for a password it does not have.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isReauthToken, type ReauthPurpose, type StepUp } from '../../accounts/step-up.ts';
import { loadAccount } from '../../accounts/user-repository.ts';
import { Problem, forbidden } from '../../errors.ts';

export type WalletConfirmRule = {
  purpose: ReauthPurpose;
  target?: string;
  /** What is being done, as the 403 starts: "Sending from a treasury wallet". */
  doing: string;
  /** The 401's detail for a missing or wrong confirmation. */
  wrong: string;
};

export async function confirmWalletUse(stepUp: StepUp, em: EntityManager, userId: string, confirm: string | undefined, rule: WalletConfirmRule): Promise<void> {
  const account = await loadAccount(em, userId);
  if (!account.password_hash && !(confirm && isReauthToken(confirm))) {
    throw forbidden(`${rule.doing} needs a re-authentication: set a password first, or send a rat_ token for ${rule.purpose} (POST /v1/auth/reauth)`);
  }
  await stepUp.confirm(em, account, confirm, { purpose: rule.purpose, target: rule.target, wrong: () => new Problem(401, rule.wrong) });
}
