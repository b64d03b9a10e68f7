// Grants of the platform API (reference GrantResponse, GrantResourcesResponse, GrantListResponse).
import { z } from 'zod';
import { isoAlways, shape, timestamp, uuid } from './registry.ts';
import type { GrantRow } from '../../domain/platform/grant-repository.ts';

export const GrantSchema = shape('PlatformGrant', z.object({
  id: uuid,
  vault_id: uuid,
  allowed_paths: z.array(z.string()),
  permissions: z.array(z.string()),
  expires_at: timestamp.nullable(),
  created_at: timestamp,
}));

export const GrantsCreatedSchema = shape('PlatformGrantsCreated', z.object({
  connection_id: uuid,
  grants: z.array(GrantSchema),
  vault_ids: z.array(uuid),
  agent_ids: z.array(uuid),
}));

export const GrantListSchema = shape('PlatformGrantList', z.object({ grants: z.array(GrantSchema) }));

const presentGrant = (g: GrantRow): z.output<typeof GrantSchema> => ({
  id: g.id, vault_id: g.vault_ids[0]!, allowed_paths: g.allowed_paths, permissions: g.permissions,
  expires_at: g.expires_at === null ? null : isoAlways(g.expires_at), created_at: isoAlways(g.created_at),
});

export const presentGrantsCreated = (r: { connectionId: string; grants: GrantRow[] }): z.output<typeof GrantsCreatedSchema> => ({
  connection_id: r.connectionId, grants: r.grants.map(presentGrant), vault_ids: r.grants.map((g) => g.vault_ids[0]!), agent_ids: [],
});

export const presentGrantList = (grants: GrantRow[]): z.output<typeof GrantListSchema> => ({ grants: grants.map(presentGrant) });
