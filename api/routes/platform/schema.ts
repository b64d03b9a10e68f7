// Input schemas of the platform app routes (reference CreatePlatformAppRequest,
// UpdatePlatformAppRequest). Shapes only: a webhook URL's destination is judged by the domain
// (domain/platform/platform-app-commands.ts), which needs the outbound policy.
import { z } from 'zod';
import { idParam, limitField, timestampField } from '../../input/fields.ts';
import { TemplateSpecSchema } from '../../../domain/platform/template-spec.ts';

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048);
const name = z.string().trim().min(1).max(100);
const description = z.string().trim().max(1000);
const redirectUris = z.array(httpUrl).max(20);
const billingModel = z.enum(['platform_pays', 'user_pays', 'hybrid'], { message: 'must be platform_pays, user_pays or hybrid' });
const authMode = z.enum(['silent', 'user_signin', 'configurable'], { message: 'must be silent, user_signin or configurable' });
const maxUsers = z.number().int().min(0).max(10_000_000).nullable();
const keyExpiry = timestampField.nullable().transform((t) => (t === null ? null : new Date(t)));
/** Sent as "" or null: cleared. */
const clearable = (s: z.ZodString) => s.nullable().transform((v) => (v === null || v === '' ? null : v));

export const createPlatformAppBody = z.object({
  name,
  slug: z.string().min(3).max(64).regex(/^[a-zA-Z0-9_-]+$/, { message: 'must be 3 to 64 of letters, digits, _ and -' }),
  description: description.optional(),
  oidc_jwks_url: httpUrl.optional(),
  oidc_issuer: z.string().min(1).max(2048).optional(),
  oidc_audience: z.string().min(1).max(2048).optional(),
  redirect_uris: redirectUris.optional(),
  billing_model: billingModel.optional(),
  auth_mode: authMode.optional(),
  max_connected_users: maxUsers.optional(),
  api_key_expires_at: keyExpiry.optional(),
});

export const updatePlatformAppBody = z.object({
  name: name.optional(),
  description: description.optional(),
  logo_url: clearable(z.string().max(2048)).optional(),
  oidc_jwks_url: clearable(z.string().max(2048)).pipe(httpUrl.nullable()).optional(),
  oidc_issuer: clearable(z.string().max(2048)).optional(),
  oidc_audience: clearable(z.string().max(2048)).optional(),
  redirect_uris: redirectUris.optional(),
  webhook_url: clearable(z.string().max(2048)).optional(),
  billing_model: billingModel.optional(),
  auth_mode: authMode.optional(),
  max_connected_users: maxUsers.optional(),
  is_active: z.boolean().optional(),
  api_key_expires_at: keyExpiry.optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'give at least one field to change' });

export const rotatePlatformKeyBody = z.object({
  api_key_expires_at: keyExpiry.optional(),
  /** Ours: how long the current key keeps working (0, the default: it stops at once). */
  old_key_valid_for_seconds: z.number().int().min(0).max(86_400).optional(),
}).optional().transform((b) => b ?? {});

export const platformAppParams = z.object({ appId: idParam });

export const rotateWebhookSecretBody = z.object({
  /** Ours: how long the current secret keeps signing X-Webhook-Signature next to the new one (default 900; 0: it stops at once). */
  overlap_seconds: z.number().int().min(0).max(86_400).optional(),
}).optional().transform((b) => b ?? {});

// Templates: the spec's rules are the domain's (domain/platform/template-spec.ts), checked here so a
// 400 names each field at fault under spec.
const templateName = z.string().trim().min(1).max(100);

export const createTemplateBody = z.object({
  name: templateName,
  description: description.optional(),
  spec: TemplateSpecSchema,
});

export const updateTemplateBody = z.object({
  name: templateName.optional(),
  description: description.nullable().optional(),
  spec: TemplateSpecSchema.optional(),
  is_active: z.boolean().optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'give at least one of name, description, spec, is_active' });

export const templateParams = z.object({ appId: idParam, template_id: idParam });

// Users.
export const upsertUserBody = z.object({
  /** An OIDC JWT of the app's IdP (checked against the app's JWKS, issuer and audience). */
  subject_token: z.string().min(1).max(16_384).optional(),
  subject_token_type: z.string().max(200).optional(),
  email: z.string().trim().max(254).pipe(z.email({ message: 'must be a valid e-mail address' })).transform((e) => e.toLowerCase()).optional(),
  display_name: z.string().trim().min(1).max(100).optional(),
}).transform((b) => ({ subjectToken: b.subject_token, subjectTokenType: b.subject_token_type, email: b.email, displayName: b.display_name }));

export const appAuditQuery = z.object({
  limit: limitField(200, 50),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});

