// The statements behind platform settings (migration 0047; settings-commands.ts decides who).
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';

export type SettingRecord = { key: string; value: string; updated_by: string | null; updated_at: Date };

export async function listSettings(em: EntityManager): Promise<SettingRecord[]> {
  return query(em).selectFrom('platform_settings').selectAll().orderBy('key').execute();
}

/** Sets `key`; answers the stored row and the value it replaced (undefined: new). */
export async function putSetting(em: EntityManager, key: string, value: string, by: string): Promise<{ row: SettingRecord; previous: string | undefined }> {
  return em.transactional(async (tx) => {
    const q = query(tx);
    const previous = await q.selectFrom('platform_settings').select('value').where('key', '=', key).forUpdate().executeTakeFirst();
    const row = await q.insertInto('platform_settings').values({ key, value, updated_by: by })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_by: by, updated_at: sql<Date>`now()` }))
      .returningAll().executeTakeFirstOrThrow();
    return { row, previous: previous?.value };
  });
}

/** Deletes `key`; false when there was none. */
export async function deleteSetting(em: EntityManager, key: string): Promise<boolean> {
  const row = await query(em).deleteFrom('platform_settings').where('key', '=', key).returning('key').executeTakeFirst();
  return row !== undefined;
}
