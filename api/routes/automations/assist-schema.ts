// Input schemas of the automation assistant's routes (reference: the request bodies of
// assistDraftAutomation and assistAutomationSession). The time zone and the agent are judged by
// the domain (domain/automations/assist/assist-commands.ts), as on a real create.
import { z } from 'zod';

const uuid = z.string().trim().uuid({ message: 'must be a UUID' });

export const assistDraftBody = z.object({
  message: z.string().trim().min(1, { message: 'must not be empty' }).max(8000, { message: 'must be at most 8000 characters' }),
  agent_id: uuid.optional(),
  timezone: z.string().max(64, { message: 'must be at most 64 characters' }).optional(),
});

/** The body is optional: no body is `{}`. */
export const assistSessionBody = z.object({
  runtime_id: uuid.nullable().optional(),
}).optional().transform((b) => (b?.runtime_id ? { runtime_id: b.runtime_id } : {}));
