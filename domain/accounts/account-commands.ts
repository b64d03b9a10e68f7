// The caller's own account (§4.3): profile, security settings, data export and deletion.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { HotReads } from '../../db/hot-reads.ts';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { ApiKeyService } from '../auth/api-keys.ts';
import type { RevocationList } from '../auth/revocations.ts';
import type { AccountsClient } from './client.ts';
import type { AttemptThrottle } from './attempt-throttle.ts';
import type { PasswordCheck } from './password-check.ts';
import type { StepUp } from './step-up.ts';
import { callerOf } from '../auth/principal.ts';
import { Problem } from '../errors.ts';
import { loadProfile, type ProfileRow } from './profile.ts';
import { loadAccount, lockUser, passkeyCount, setRequirePasskey, updateProfile } from './user-repository.ts';
import { readAccountExport, type AccountExport } from './export.ts';
import { confirmPassword } from './password-confirmation.ts';
import { isReauthToken, SECOND_FACTOR_METHODS } from './step-up.ts';
import { beginAccountDeletion } from './begin-deletion.ts';

export type Settings = { requirePasskeyForVaults: boolean; passkeyCount: number };

export type AccountDeps = {
  db: () => EntityManager;
  hot: HotReads;
  audit: ActionAudit;
  revocations: RevocationList;
  apiKeys: ApiKeyService;
  throttle: AttemptThrottle;
  passwords: PasswordCheck;
  /** X-Auth-Confirm: the password or a `rat_` token for `account.delete`. */
  stepUp: StepUp;
  /** Starts the workflow that removes a deleted account's data. */
  deletion: Pick<AccountsClient, 'startDeletion'>;
};

export class AccountCommands {
  private readonly d: AccountDeps;

  constructor(deps: AccountDeps) {
    this.d = deps;
  }

  profile(ctx: ActionContext): Promise<ProfileRow> {
    return loadProfile(this.d.hot, callerOf(ctx).id);
  }

  /** Display name (null clears it) and marketing opt-in; the updated profile. */
  async updateProfile(ctx: ActionContext, input: { displayName?: string | null; marketingEmails?: boolean }): Promise<ProfileRow> {
    const p = callerOf(ctx);
    await updateProfile(this.d.db(), p.id, input);
    return loadProfile(this.d.hot, p.id);
  }

  async settings(ctx: ActionContext): Promise<Settings> {
    const em = this.d.db();
    const user = await loadAccount(em, callerOf(ctx).id);
    return { requirePasskeyForVaults: user.require_passkey_for_vaults, passkeyCount: await passkeyCount(em, user.id) };
  }

  /**
   * Passkey-gated vault reads can only be turned on with a registered passkey to unlock them, and
   * only turned off with a second factor (X-Auth-Confirm: a rat_ for security.vault_passkey.disable
   * minted by passkey, TOTP or recovery code): a stolen password or session must not lift the gate.
   * The user's row is locked meanwhile, so deleting the last passkey cannot slip in between.
   */
  async updateSettings(ctx: ActionContext, input: { requirePasskeyForVaults: boolean; confirm?: string }): Promise<Settings> {
    const count = await this.d.db().transactional(async (tx) => {
      const user = await loadAccount(tx, callerOf(ctx).id);
      await lockUser(tx, user.id);
      const n = await passkeyCount(tx, user.id);
      if (input.requirePasskeyForVaults && n === 0) {
        throw new Problem(400, 'Register a passkey first: require_passkey_for_vaults needs at least one registered passkey', { type: 'passkey_required' });
      }
      if (!input.requirePasskeyForVaults && user.require_passkey_for_vaults) {
        await this.d.stepUp.confirm(tx, user, input.confirm, {
          purpose: 'security.vault_passkey.disable', methods: SECOND_FACTOR_METHODS, password: false,
          wrong: () => new Problem(401, 'Turning vault unlock off needs X-Auth-Confirm: a rat_ token for security.vault_passkey.disable made with a passkey or TOTP'),
        });
      }
      await setRequirePasskey(tx, user.id, input.requirePasskeyForVaults);
      return n;
    });
    await this.d.audit.record(ctx, 'settings.update', { resourceType: 'user', resourceId: callerOf(ctx).id, details: { require_passkey_for_vaults: input.requirePasskeyForVaults } });
    return { requirePasskeyForVaults: input.requirePasskeyForVaults, passkeyCount: count };
  }

  async exportData(ctx: ActionContext): Promise<AccountExport> {
    const p = callerOf(ctx);
    const archive = await readAccountExport(this.d.db(), p.id);
    await this.d.audit.record(ctx, 'user.export_data', { resourceType: 'user', resourceId: p.id });
    return archive;
  }

  /**
   * Deletes the caller's account: credentials die at once, a workflow removes the data. An
   * account with a password must confirm it: the body's `password`, or X-Auth-Confirm (the
   * password, or a `rat_` token for `account.delete`, which any account may send); wrong
   * passwords are throttled.
   */
  async delete(ctx: ActionContext, confirm: { password?: string; header?: string }): Promise<void> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const account = await loadAccount(em, p.id);
    const wrong = () => new Problem(401, 'Confirm with your password (field `password`) or X-Auth-Confirm (the password or a rat_ token for account.delete)');
    if (confirm.password !== undefined) {
      if (account.password_hash) {
        const refused = await confirmPassword(this.d, em, account, confirm.password, wrong);
        if (refused) throw refused;
      }
    } else if (account.password_hash || (confirm.header && isReauthToken(confirm.header))) {
      await this.d.stepUp.confirm(em, account, confirm.header, { purpose: 'account.delete', wrong });
    }
    await beginAccountDeletion({ em: this.d.db, revocations: this.d.revocations, apiKeys: this.d.apiKeys, workflows: this.d.deletion }, account,
      () => this.d.audit.record(ctx, 'user.delete', { resourceType: 'user', resourceId: account.id }));
  }
}
