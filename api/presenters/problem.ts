// RFC 9457 problem details: every error body. Extra members (a field list, a limit) may follow.
import { z } from 'zod';
import { shape } from './registry.ts';

export const ProblemSchema = shape('Problem', z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
}).catchall(z.unknown()), 'RFC 9457 problem details');
