// The platform_templates table (migration 0054): every statement the template commands need.
// Every statement is scoped by the app, which the caller was checked to reach (app-access.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query, withOrmErrors } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { isUuid } from '../ids.ts';

export type TemplateRow = Selectable<Database['platform_templates']>;

export type TemplateChanges = { name?: string; description?: string; spec?: Record<string, unknown>; is_active?: boolean };

export function insertTemplate(tx: EntityManager, t: { id: string; appId: string; name: string; description: string; spec: Record<string, unknown> }): Promise<TemplateRow> {
  return withOrmErrors(tx, query(tx).insertInto('platform_templates')
    .values({ id: t.id, platform_app_id: t.appId, name: t.name, description: t.description, spec: t.spec })
    .returningAll().executeTakeFirstOrThrow());
}

export async function countTemplates(tx: EntityManager, appId: string): Promise<number> {
  const row = await query(tx).selectFrom('platform_templates').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('platform_app_id', '=', appId).executeTakeFirstOrThrow();
  return row.n;
}

/** The app's templates, oldest first. */
export function listTemplates(em: EntityManager, appId: string): Promise<TemplateRow[]> {
  return query(em).selectFrom('platform_templates').selectAll().where('platform_app_id', '=', appId).orderBy('created_at').orderBy('id').execute();
}

export async function findTemplate(em: EntityManager, appId: string, templateId: string): Promise<TemplateRow | null> {
  if (!isUuid(templateId)) return null;
  return (await query(em).selectFrom('platform_templates').selectAll().where('id', '=', templateId).where('platform_app_id', '=', appId).executeTakeFirst()) ?? null;
}

/** Writes the changes; a new spec is a new version. Null when the app has no such template. */
export async function updateTemplate(tx: EntityManager, appId: string, templateId: string, c: TemplateChanges): Promise<TemplateRow | null> {
  if (!isUuid(templateId)) return null;
  const row = await withOrmErrors(tx, query(tx).updateTable('platform_templates').set({
    updated_at: sql`now()`,
    ...(c.name !== undefined ? { name: c.name } : {}),
    ...(c.description !== undefined ? { description: c.description } : {}),
    ...(c.spec !== undefined ? { spec: c.spec, version: sql<number>`version + 1` } : {}),
    ...(c.is_active !== undefined ? { is_active: c.is_active } : {}),
  }).where('id', '=', templateId).where('platform_app_id', '=', appId).returningAll().executeTakeFirst());
  return row ?? null;
}

export async function deleteTemplate(tx: EntityManager, appId: string, templateId: string): Promise<boolean> {
  if (!isUuid(templateId)) return false;
  const r = await query(tx).deleteFrom('platform_templates').where('id', '=', templateId).where('platform_app_id', '=', appId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
