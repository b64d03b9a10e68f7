// Answers of the Temporal codec endpoint: Payloads in protobuf JSON (Temporal's remote codec
// protocol: exactly `payloads`, each with `metadata` and `data` as base64, nothing else, since the
// CLI's protojson decoder refuses unknown fields), and the codec link an operator pastes into the UI.
import { z } from 'zod';
import type { Payload } from '@temporalio/common';
import { shape, timestamp } from './registry.ts';
import type { CodecLink } from '../../domain/temporal/codec-commands.ts';

export const TemporalPayloadSchema = shape('TemporalPayload', z.object({
  /** Metadata values, base64. */
  metadata: z.record(z.string(), z.string()),
  /** The payload's bytes, base64. */
  data: z.string(),
}));

export const TemporalPayloadsSchema = shape('TemporalPayloads', z.object({ payloads: z.array(TemporalPayloadSchema) }),
  "Temporal Payloads in protobuf JSON (the remote codec protocol)");

export const TemporalCodecLinkSchema = shape('TemporalCodecLink', z.object({
  /** Paste into the Temporal UI's codec server endpoint setting; it carries the credential, keep it private. */
  codec_endpoint: z.string(),
  expires_at: timestamp,
}), 'A codec endpoint URL for the Temporal UI, usable by this operator until it expires');

const b64 = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('base64');

export const presentPayloads = (payloads: Payload[]): z.output<typeof TemporalPayloadsSchema> => ({
  payloads: payloads.map((p) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
    data: b64(p.data),
  })),
});

export const presentCodecLink = (l: CodecLink): z.output<typeof TemporalCodecLinkSchema> =>
  ({ codec_endpoint: l.codecEndpoint, expires_at: l.expiresAt.toISOString() });
