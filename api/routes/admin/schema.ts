// Input schemas of the codec endpoint. Bodies follow Temporal's remote codec protocol: Payloads
// as protobuf JSON, bytes as base64 (standard or URL-safe, padded or not, as protojson accepts).
import { z } from 'zod';
import type { Payload } from '@temporalio/common';
import { CODEC_LINK_DEFAULT_MINUTES, CODEC_LINK_MAX_MINUTES } from '../../../domain/temporal/codec-commands.ts';

const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, { message: 'must be base64' }).transform((s) => Buffer.from(s, 'base64'));

const payload = z.object({
  metadata: z.record(z.string().min(1).max(256), base64).refine((m) => Object.keys(m).length <= 64, { message: 'at most 64 metadata entries' }).optional(),
  data: base64.optional(),
}).transform((p): Payload => ({ metadata: p.metadata ?? {}, data: p.data ?? Buffer.alloc(0) }));

/** `{ payloads: [...] }`, as the Temporal UI and CLI send it. */
export const codecBody = z.object({ payloads: z.array(payload).max(10_000) });

/** A codec link's token, from the URL. Anything malformed is refused by the domain as invalid (401). */
export const codecLinkParams = z.object({ token: z.string().max(256) });

export const codecLinkBody = z.object({
  ttl_minutes: z.number().int().min(1).max(CODEC_LINK_MAX_MINUTES).default(CODEC_LINK_DEFAULT_MINUTES),
}).optional().transform((b) => ({ ttlMinutes: b?.ttl_minutes ?? CODEC_LINK_DEFAULT_MINUTES }));
