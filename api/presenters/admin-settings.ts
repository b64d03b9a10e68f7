// Platform settings as operators see them (GET/PUT /v1/admin/settings; reference SettingResponse).
import { z } from 'zod';
import { shape, timestamp } from './registry.ts';
import type { SettingRecord } from '../../domain/admin/setting-repository.ts';

export const SettingSchema = shape('Setting', z.object({
  key: z.string(),
  value: z.string(),
  /** The operator who set it last; omitted once that account is gone. */
  updated_by: z.string().optional(),
  updated_at: timestamp,
}), 'A platform setting');

export const SettingsListSchema = shape('SettingsList', z.object({ settings: z.array(SettingSchema) }), 'Every platform setting, by key');

export function presentSetting(s: SettingRecord): z.output<typeof SettingSchema> {
  return { key: s.key, value: s.value, ...(s.updated_by ? { updated_by: s.updated_by } : {}), updated_at: s.updated_at.toISOString() };
}
