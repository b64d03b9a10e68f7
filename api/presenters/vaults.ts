// Vault records (reference VaultResponse). Optional fields are omitted rather than sent as null.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways, omitNull } from './registry.ts';
import type { VaultRow } from '../../domain/vaults/vault-repository.ts';

export const VaultSchema = shape('Vault', z.object({
  id: uuid,
  name: z.string(),
  description: z.string(),
  created_by: z.string(),
  created_by_type: z.enum(['user', 'agent']),
  created_at: timestamp,
  cmek_enabled: z.boolean(),
  cmek_fingerprint: z.string().optional(),
  mpc_custody: z.string().optional(),
  mpc_threshold: z.number().int().optional(),
  mpc_providers: z.array(z.string()),
}));

export const VaultListSchema = shape('VaultList', z.object({ vaults: z.array(VaultSchema) }));

export function presentVault(v: VaultRow): z.output<typeof VaultSchema> {
  return {
    id: v.id,
    name: v.name,
    description: v.description,
    created_by: v.created_by,
    created_by_type: v.created_by_type,
    created_at: isoAlways(v.created_at),
    cmek_enabled: v.cmek_enabled,
    cmek_fingerprint: omitNull(v.cmek_fingerprint),
    mpc_providers: [],
  };
}

export const presentVaultList = (vaults: VaultRow[]): z.output<typeof VaultListSchema> => ({ vaults: vaults.map(presentVault) });
