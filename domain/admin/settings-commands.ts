// Platform settings (spec §4.14; reference adminListSettings / adminUpdateSetting /
// adminDeleteSetting): string values by key, for platform operators only. Each change is recorded
// in the operator's own organization's audit log with the value before and after: settings are
// configuration, never secrets (a secret belongs in a vault).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { PlatformOperators } from '../auth/platform-operators.ts';
import { callerOf } from '../auth/principal.ts';
import { notFound } from '../errors.ts';
import { deleteSetting, listSettings, putSetting, type SettingRecord } from './setting-repository.ts';

/** What a key may look like (the table's CHECK says the same). */
export const SETTING_KEY = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
export const SETTING_VALUE_MAX = 4096;

export class SettingsCommands {
  private readonly d: { db: () => EntityManager; audit: ActionAudit; operators: PlatformOperators };

  constructor(deps: { db: () => EntityManager; audit: ActionAudit; operators: PlatformOperators }) {
    this.d = deps;
  }

  async list(ctx: ActionContext): Promise<SettingRecord[]> {
    const em = this.d.db();
    await this.d.operators.requireOperator(em, callerOf(ctx));
    return listSettings(em);
  }

  async put(ctx: ActionContext, key: string, value: string): Promise<SettingRecord> {
    const em = this.d.db();
    const operator = await this.d.operators.requireOperator(em, callerOf(ctx));
    if (!SETTING_KEY.test(key)) throw notFound('Setting');
    const { row, previous } = await putSetting(em, key, value, operator.id);
    await this.d.audit.record(ctx, 'admin.setting_set', { resourceType: 'platform_setting', resourceId: key, details: { key, value, previous: previous ?? null } });
    return row;
  }

  async delete(ctx: ActionContext, key: string): Promise<void> {
    const em = this.d.db();
    await this.d.operators.requireOperator(em, callerOf(ctx));
    if (!SETTING_KEY.test(key) || !(await deleteSetting(em, key))) throw notFound('Setting');
    await this.d.audit.record(ctx, 'admin.setting_deleted', { resourceType: 'platform_setting', resourceId: key, details: { key } });
  }
}
