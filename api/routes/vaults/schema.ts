// Input schemas of the vault and secret routes.
import { z } from 'zod';
import { secretListCursor } from '../../../domain/secrets/secret-list.ts';
import { idParam, timestampField, positiveInt32Query, limitField, cursorField } from '../../input/fields.ts';
import { secretTypeField, MAX_METADATA_BYTES, MAX_DESCRIPTION_LENGTH } from '../../../domain/secrets/secret-types.ts';
import { CHARSETS, GENERATED_LENGTH, type Charset } from '../../../domain/secrets/secret-generator.ts';
import { ConditionsSchema } from '../../../domain/access/conditions.ts';
import { globPatternField } from '../../../domain/paths/glob-pattern-field.ts';

export const vaultName = z.string().trim().min(1).max(255)
  .refine((n) => !n.startsWith('__'), { message: 'names starting with "__" are reserved for system vaults' });

export const createVaultBody = z.object({ name: vaultName, description: z.string().max(2000).optional().default('') });
export const vaultParams = z.object({ vault_id: idParam });

// Secrets. The path comes from the raw URL (secret-paths.ts), not from these params.
export const secretParams = z.object({ vault_id: idParam, path: z.unknown().optional(), rest: z.unknown().optional() });

export const putSecretBody = z.object({
  type: secretTypeField.optional(),
  value: z.string({ message: 'must be a string' }),
  metadata: z.record(z.string(), z.unknown()).optional()
    .refine((m) => m === undefined || Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_BYTES, { message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON` }),
  description: z.string().max(MAX_DESCRIPTION_LENGTH).nullable().optional(),
  expires_at: timestampField.nullable().optional(),
  /** Each successful read counts; past the cap reads answer 410. null removes the cap. */
  max_access_count: z.number().int().min(1).max(2_147_483_647).nullable().optional(),
  rotation_policy: z.record(z.string(), z.unknown()).nullable().optional()
    .refine((m) => m == null || Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_BYTES, { message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON` }),
});

export const readSecretQuery = z.object({ version: positiveInt32Query.optional() });

export const listSecretsQuery = z.object({
  prefix: z.string().max(512).optional(),
  limit: limitField(500, 100),
  cursor: cursorField(secretListCursor).optional(),
});

export const rotateSecretBody = z.object({
  length: z.number().int().min(GENERATED_LENGTH.min).max(GENERATED_LENGTH.max).default(GENERATED_LENGTH.default),
  charset: z.enum(Object.keys(CHARSETS) as [Charset, ...Charset[]]).default('hex'),
  type: secretTypeField.optional(),
}).optional().transform((b) => b ?? { length: GENERATED_LENGTH.default, charset: 'hex' as Charset });

// Policies.
const permissionsField = z.array(z.enum(['read', 'write', 'delete', 'rotate'])).min(1).max(4).transform((p) => [...new Set(p)]);
const policyExpiresField = timestampField.nullable().optional();
const patternField = globPatternField;

export const createPolicyBody = z.object({
  secret_path_pattern: patternField,
  principal_type: z.enum(['user', 'agent']),
  principal_id: z.uuid({ message: 'must be a user or agent id' }),
  permissions: permissionsField,
  conditions: ConditionsSchema.optional().default({}),
  expires_at: policyExpiresField,
  effect: z.enum(['allow', 'deny']).default('allow'),
  priority: z.number().int().min(0).max(1000).default(0),
});

export const updatePolicyBody = z.object({
  permissions: permissionsField.optional(),
  conditions: ConditionsSchema.optional(),
  expires_at: policyExpiresField,
  effect: z.enum(['allow', 'deny']).optional(),
  priority: z.number().int().min(0).max(1000).optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'send at least one of permissions, conditions, expires_at, effect, priority' });

export const policyParams = z.object({ vault_id: idParam, policy_id: idParam });
