// Key rotation jobs (reference CmekRotationJobResponse; the vault key job has the same shape
// without the fingerprints). Never a key or a key handle.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways, isoOrOmit, omitNull } from './registry.ts';
import type { RotationJobRow } from '../../domain/key-rotation/job-repository.ts';

export const KeyRotationJobSchema = shape('KeyRotationJob', z.object({
  id: uuid,
  vault_id: uuid,
  status: z.enum(['pending', 'running', 'completed', 'failed']),
  total_secrets: z.number().int(),
  processed: z.number().int(),
  error: z.string().optional(),
  started_at: timestamp.optional(),
  completed_at: timestamp.optional(),
  created_at: timestamp,
}), 'A key rotation job: total_secrets counts secret versions');

export function presentKeyRotationJob(j: RotationJobRow): z.output<typeof KeyRotationJobSchema> {
  return {
    id: j.id, vault_id: j.vault_id, status: j.status, total_secrets: j.total_secrets, processed: j.processed,
    error: omitNull(j.error), started_at: isoOrOmit(j.started_at), completed_at: isoOrOmit(j.completed_at), created_at: isoAlways(j.created_at),
  };
}

/** A CMEK rotation job (reference CmekRotationJobResponse): the fingerprints, never a key. */
export const CmekRotationJobSchema = shape('CmekRotationJob', KeyRotationJobSchema.extend({
  old_fingerprint: z.string().optional(),
  new_fingerprint: z.string().optional(),
}), 'A CMEK re-encryption job: total_secrets counts secret versions under the old customer key');

export function presentCmekRotationJob(j: RotationJobRow): z.output<typeof CmekRotationJobSchema> {
  return { ...presentKeyRotationJob(j), old_fingerprint: omitNull(j.old_fingerprint), new_fingerprint: omitNull(j.new_fingerprint) };
}
