// Accepted secret types: the union of every published list (reference facts §6).
import { z } from 'zod';

export const SECRET_TYPES = [
  'generic', 'password', 'api_key', 'certificate', 'private_key', 'ssh_key', 'env', 'env_bundle',
  'file', 'note', 'credential', 'payment_card', 'gift_card',
] as const;
export type SecretType = (typeof SECRET_TYPES)[number];
export const secretTypeField = z.enum(SECRET_TYPES, { message: `must be one of: ${SECRET_TYPES.join(', ')}` });

/** Types an agent with the Intents API enabled may never read directly (spec §1). */
export const SIGNING_MATERIAL_TYPES: ReadonlySet<string> = new Set(['private_key', 'ssh_key']);

export const MAX_VALUE_BYTES = 256 * 1024;
export const MAX_METADATA_BYTES = 16 * 1024;
export const MAX_DESCRIPTION_LENGTH = 2000;
