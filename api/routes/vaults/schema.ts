// Input schemas of the vault routes.
import { z } from 'zod';
import { idParam } from '../../input/fields.ts';

export const vaultName = z.string().trim().min(1).max(255)
  .refine((n) => !n.startsWith('__'), { message: 'names starting with "__" are reserved for system vaults' });

export const createVaultBody = z.object({ name: vaultName, description: z.string().max(2000).optional().default('') });
export const vaultParams = z.object({ vault_id: idParam });
