// Input schemas of the execution binding routes (reference CreateBindingRequest,
// UpdateBindingRequest, CredentialSource, ExecuteRequest). The config, guardrail and request
// shapes are the domain's (domain/bindings/binding-config.ts), so an automation step is checked
// exactly like a request. A credential is sent as `credential` (a string, or an object with one
// string field such as {"token": "…"}) or as `credential_source` {type: inline, value} /
// {type: vault_ref, vault_id, path}; never both.
import { z } from 'zod';
import { idParam } from '../../input/fields.ts';
import {
  BINDING_TYPES, SUPPORTED_BINDING_TYPES, bindingGuardrailsSchema, httpConfigSchema, httpRequestParamsSchema, INTENT_TYPES,
} from '../../../domain/bindings/binding-config.ts';
import type { CredentialInput } from '../../../domain/bindings/binding-setup.ts';

/** The credential material: a string, or an object holding exactly one string (its field name is free). */
const credentialValue = z.union([
  z.string().min(1).max(8192),
  z.record(z.string(), z.unknown()),
], { message: 'must be a string, or an object with one string field such as {"token": "…"}' }).transform((v, ctx) => {
  if (typeof v === 'string') return v;
  const strings = Object.values(v).filter((x): x is string => typeof x === 'string');
  if (Object.keys(v).length !== 1 || strings.length !== 1 || strings[0]!.length > 8192) {
    ctx.addIssue({ code: 'custom', message: 'an object credential must have exactly one field, a string of at most 8192 characters, e.g. {"token": "…"}' });
    return z.NEVER;
  }
  return strings[0]!;
});

const credentialSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('inline'), value: credentialValue }),
  z.object({ type: z.literal('vault_ref'), vault_id: z.string().max(64), path: z.string().min(1).max(1024) }),
], { message: 'must be {type: "inline", value} or {type: "vault_ref", vault_id, path}' });

type CredentialFields = { credential?: string; credential_source?: z.output<typeof credentialSource> };

/** One credential input from either spelling; both at once is a 400. */
function credentialOf(b: CredentialFields, ctx: z.RefinementCtx): CredentialInput | undefined {
  if (b.credential !== undefined && b.credential_source !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['credential_source'], message: 'send credential or credential_source, not both' });
    return undefined;
  }
  if (b.credential !== undefined) return { type: 'inline', value: b.credential };
  const s = b.credential_source;
  if (!s) return undefined;
  return s.type === 'inline' ? { type: 'inline', value: s.value } : { type: 'vault_ref', vault_id: s.vault_id, path: s.path };
}

const bindingType = z.enum(BINDING_TYPES, { message: `must be one of ${BINDING_TYPES.join(', ')}` })
  .superRefine((t, ctx) => {
    if (!SUPPORTED_BINDING_TYPES.includes(t)) ctx.addIssue({ code: 'custom', message: `${t} bindings are not supported yet (only ${SUPPORTED_BINDING_TYPES.join(', ')})` });
  })
  .transform(() => 'http' as const);

const bindingName = z.string().trim().min(1).max(100)
  .regex(/^[^\u0000-\u001f\u007f]+$/, { message: 'must not contain control characters' })
  .refine((n) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(n), { message: 'must not look like a UUID (execute names a binding by name or id)' });

export const createBindingBody = z.object({
  name: bindingName,
  binding_type: bindingType,
  config: httpConfigSchema,
  guardrails: bindingGuardrailsSchema.optional().default({}),
  credential: credentialValue.optional(),
  credential_source: credentialSource.optional(),
}).transform(({ credential, credential_source, ...rest }, ctx) => ({ ...rest, credential: credentialOf({ credential, credential_source }, ctx) }));

export const updateBindingBody = z.object({
  config: httpConfigSchema.optional(),
  guardrails: bindingGuardrailsSchema.optional(),
  is_active: z.boolean().optional(),
  credential: credentialValue.optional(),
  credential_source: credentialSource.optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'send at least one of config, guardrails, is_active, credential, credential_source' })
  .transform(({ credential, credential_source, ...rest }, ctx) => ({ ...rest, credential: credentialOf({ credential, credential_source }, ctx) }));

export const rotateCredentialBody = z.object({ credential: credentialValue });

export const testBindingBody = z.object({ timeout_ms: z.number().int().min(100).max(30_000).optional() }).optional();

export const bindingAgentParams = z.object({ agent_id: idParam });
export const bindingParams = z.object({ agent_id: idParam, binding_id: idParam });

export const executeBody = z.object({
  binding: z.string().trim().min(1).max(100),
  intent_type: z.enum(INTENT_TYPES, { message: `must be one of ${INTENT_TYPES.join(', ')} (the intent types of http bindings)` }),
  execution_mode: z.enum(['vault', 'tee']).optional()
    .refine((m) => m !== 'tee', { message: 'tee is not offered: requests run inside this service (vault)' }),
  params: httpRequestParamsSchema,
});

export const executionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
