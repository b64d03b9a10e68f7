// Platform-wide settings an operator keeps (migration 0047; domain/admin).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './accounts.ts';

export const PlatformSetting = defineEntity({
  name: 'PlatformSetting',
  tableName: 'platform_settings',
  properties: {
    key: p.text().primary().check("key ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$'"),
    value: p.text(),
    updated_by: () => p.manyToOne(User).mapToPk().fieldName('updated_by').nullable().deleteRule('set null'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
});
export type PlatformSettingRow = InferEntity<typeof PlatformSetting>;
