// Rotating a vault's own key (issue 12 §2). The route name is ours: the reference has none. 202 with
// the job and its Location; the job's status is polled like the reference's CMEK rotation job.
import { z } from 'zod';
import { route } from '../../route.ts';
import { idParam } from '../../input/fields.ts';
import { vaultParams } from './schema.ts';
import { KeyRotationJobSchema, presentKeyRotationJob } from '../../presenters/key-rotation.ts';

const jobParams = z.object({ vault_id: idParam, job_id: idParam });

export const keyRotationRoutes = [
  route({
    method: 'POST', path: '/v1/vaults/:vault_id/rotate-key', tag: 'Vaults', auth: 'user',
    summary: "Rotate the vault's own key: a new KMS key now, every data key re-wrapped under it by a background job, then the old key retired",
    params: vaultParams,
    success: { status: 202, description: 'The job (Location: its status URL)', schema: KeyRotationJobSchema },
    errors: { 403: 'Not an owner or admin', 404: 'Vault not found', 409: 'A rotation of this vault is already running' },
    handler: async ({ ctx, params, action, services: s }) => {
      const job = await s.vaultKeys.rotate(action, params.vault_id);
      ctx.set('Location', `/v1/vaults/${job.vault_id}/rotate-key/${job.id}`);
      return presentKeyRotationJob(job);
    },
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/rotate-key/:job_id', tag: 'Vaults', auth: 'user',
    summary: 'A vault key rotation job: status, total_secrets, processed, error, times', params: jobParams,
    success: { status: 200, description: 'The job', schema: KeyRotationJobSchema },
    errors: { 403: 'Not an owner or admin', 404: 'Vault or job not found' },
    handler: async ({ params, action, services: s }) => presentKeyRotationJob(await s.vaultKeys.job(action, params.vault_id, params.job_id)),
  }),
];
