// Bootstrap templates (issue 35 §2): an app's organization (owners, admins) or the app itself keeps
// the templates a connection's bootstrap applies. A spec is checked when stored (template-spec.ts);
// changing it makes a new version. At most 50 templates per app.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { Problem, conflict, notFound } from '../errors.ts';
import { appForCaller } from './app-access.ts';
import type { TemplateSpec } from './template-spec.ts';
import { lockPlatformApp } from './platform-app-repository.ts';
import { countTemplates, deleteTemplate, insertTemplate, listTemplates, updateTemplate, type TemplateRow } from './template-repository.ts';

export const MAX_TEMPLATES_PER_APP = 50;

export type TemplateInput = { name: string; description?: string; spec: TemplateSpec };
export type TemplateUpdate = { name?: string; description?: string | null; spec?: TemplateSpec; is_active?: boolean };

export class TemplateCommands {
  private readonly d: { db: () => EntityManager; audit: ActionAudit };

  constructor(deps: { db: () => EntityManager; audit: ActionAudit }) {
    this.d = deps;
  }

  async create(ctx: ActionContext, appId: string, input: TemplateInput): Promise<TemplateRow> {
    const em = this.d.db();
    const app = await appForCaller(em, ctx, appId);
    const spec = input.spec;
    const id = randomUUID();
    const row = await this.named(input.name, () => em.transactional(async (tx) => {
      // Counted under the app's row lock, so concurrent creates cannot pass the cap together.
      await lockPlatformApp(tx, app.id);
      const used = await countTemplates(tx, app.id);
      if (used >= MAX_TEMPLATES_PER_APP) {
        throw new Problem(403, `Template limit reached (${used}/${MAX_TEMPLATES_PER_APP} per app); delete one first`, {
          type: 'resource_limit_exceeded', title: 'Resource Limit Exceeded', extras: { resource: 'platform_templates', limit: MAX_TEMPLATES_PER_APP, used },
        });
      }
      return insertTemplate(tx, { id, appId: app.id, name: input.name, description: input.description ?? '', spec });
    }));
    await this.d.audit.record(ctx, 'platform.template.create', {
      resourceType: 'platform_template', resourceId: id, details: { platform_app_id: app.id, name: row.name, version: row.version },
    });
    return row;
  }

  async list(ctx: ActionContext, appId: string): Promise<TemplateRow[]> {
    const em = this.d.db();
    const app = await appForCaller(em, ctx, appId);
    return listTemplates(em, app.id);
  }

  async update(ctx: ActionContext, appId: string, templateId: string, changes: TemplateUpdate): Promise<TemplateRow> {
    const em = this.d.db();
    const app = await appForCaller(em, ctx, appId);
    const spec = changes.spec;
    const row = await this.named(changes.name, () => em.transactional((tx) => updateTemplate(tx, app.id, templateId, {
      name: changes.name, description: changes.description === null ? '' : changes.description, spec, is_active: changes.is_active,
    })));
    if (!row) throw notFound('Template');
    const fields = (Object.keys(changes) as (keyof TemplateUpdate)[]).filter((k) => changes[k] !== undefined);
    await this.d.audit.record(ctx, 'platform.template.update', {
      resourceType: 'platform_template', resourceId: row.id, details: { platform_app_id: app.id, fields, name: row.name, version: row.version, is_active: row.is_active },
    });
    return row;
  }

  async delete(ctx: ActionContext, appId: string, templateId: string): Promise<void> {
    const em = this.d.db();
    const app = await appForCaller(em, ctx, appId);
    if (!await em.transactional((tx) => deleteTemplate(tx, app.id, templateId))) throw notFound('Template');
    await this.d.audit.record(ctx, 'platform.template.delete', { resourceType: 'platform_template', resourceId: templateId, details: { platform_app_id: app.id } });
  }

  /** A name taken by another template of the app is a 409. */
  private async named<T>(name: string | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (e instanceof UniqueConstraintViolationException) throw conflict(`The app already has a template named "${name}"`);
      throw e;
    }
  }
}
