// Bootstrap templates of a platform app (spec §4.15, issue 35 §2): kept by the app's organization
// (owners, admins) or by the app itself with its plt_ key. A connection's bootstrap applies one.
import { route } from '../../route.ts';
import { createTemplateBody, platformAppParams, templateParams, updateTemplateBody } from './schema.ts';
import { PlatformTemplateListSchema, PlatformTemplateSchema, presentTemplate, presentTemplateList } from '../../presenters/platform.ts';

const WHO = "Not an owner or admin of the app's organization, nor the app itself";

export const platformTemplateRoutes = [
  route({
    method: 'POST', path: '/v1/platform/apps/:appId/templates', tag: 'Platform', auth: 'user_or_platform',
    summary: 'Create a bootstrap template: the vault, agents, policies and signing keys a connection bootstrap creates',
    params: platformAppParams, body: createTemplateBody,
    success: { status: 201, description: 'The template (version 1; its spec with defaults filled in)', schema: PlatformTemplateSchema },
    errors: { 400: 'A field is invalid (named in errors[], spec.… for the spec)', 403: `${WHO}; resource_limit_exceeded (50 per app)`, 404: 'App not found', 409: 'The app has a template of that name' },
    handler: async ({ params, body, action, services: s }) => presentTemplate(await s.platformTemplates.create(action, params.appId, body)),
  }),
  route({
    method: 'GET', path: '/v1/platform/apps/:appId/templates', tag: 'Platform', auth: 'user_or_platform',
    summary: "The app's templates, oldest first",
    params: platformAppParams,
    success: { status: 200, description: 'The templates', schema: PlatformTemplateListSchema },
    errors: { 403: WHO, 404: 'App not found' },
    handler: async ({ params, action, services: s }) => presentTemplateList(await s.platformTemplates.list(action, params.appId)),
  }),
  route({
    method: 'PATCH', path: '/v1/platform/apps/:appId/templates/:template_id', tag: 'Platform', auth: 'user_or_platform',
    summary: "Update a template's name, description, spec (a new version) or is_active",
    params: templateParams, body: updateTemplateBody,
    success: { status: 200, description: 'The template', schema: PlatformTemplateSchema },
    errors: { 400: 'No field given, or a field is invalid', 403: WHO, 404: 'App or template not found', 409: 'The app has a template of that name' },
    handler: async ({ params, body, action, services: s }) => presentTemplate(await s.platformTemplates.update(action, params.appId, params.template_id, body)),
  }),
  route({
    method: 'DELETE', path: '/v1/platform/apps/:appId/templates/:template_id', tag: 'Platform', auth: 'user_or_platform',
    summary: 'Delete a template',
    params: templateParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: WHO, 404: 'App or template not found' },
    handler: async ({ params, action, services: s }) => s.platformTemplates.delete(action, params.appId, params.template_id),
  }),
];
