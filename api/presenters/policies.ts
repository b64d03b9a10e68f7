// Policy records (reference PolicyResponse). `expires_at` is omitted when the grant never expires.
import { z } from 'zod';
import { shape, timestamp, uuid, jsonObject, isoAlways, isoOrOmit } from './registry.ts';
import type { PolicyRecord } from '../../domain/policies/policy-repository.ts';

export const PolicySchema = shape('Policy', z.object({
  id: uuid,
  vault_id: uuid,
  secret_path_pattern: z.string(),
  principal_type: z.enum(['user', 'agent']),
  principal_id: z.string(),
  permissions: z.array(z.string()),
  conditions: jsonObject,
  expires_at: timestamp.optional(),
  effect: z.enum(['allow', 'deny']),
  priority: z.number().int(),
  created_by: z.string(),
  created_by_type: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  policy_schema_version: z.number().int(),
}));

export const PolicyListSchema = shape('PolicyList', z.object({ policies: z.array(PolicySchema) }));

export function presentPolicy(p: PolicyRecord): z.output<typeof PolicySchema> {
  return {
    id: p.id, vault_id: p.vault_id, secret_path_pattern: p.secret_path_pattern, principal_type: p.principal_type, principal_id: p.principal_id,
    permissions: p.permissions, conditions: p.conditions, expires_at: isoOrOmit(p.expires_at), effect: p.effect, priority: p.priority,
    created_by: p.created_by, created_by_type: p.created_by_type, created_at: isoAlways(p.created_at), updated_at: isoAlways(p.updated_at),
    policy_schema_version: 2,
  };
}

export const presentPolicyList = (rows: PolicyRecord[]): z.output<typeof PolicyListSchema> => ({ policies: rows.map(presentPolicy) });
