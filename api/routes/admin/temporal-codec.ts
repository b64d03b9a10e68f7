// Temporal's remote codec protocol for platform operators: the Temporal UI and `temporal` CLI POST
// `{payloads}` to `<endpoint>/decode` (or `/encode`) and get the same shape back. Two endpoints:
// - `/v1/admin/temporal-codec` for the CLI: `--codec-endpoint <api>/v1/admin/temporal-codec
//   --codec-auth "Bearer <operator token>"`;
// - `/v1/admin/temporal-codec/links/<token>` for the browser UI, which sends no Authorization
//   header: an operator mints it (POST .../links) and pastes it into the UI's codec settings.
// Browsers reach both only from the Temporal UI's origins (api/pipeline/codec-cors.ts).
import { route } from '../../route.ts';
import { codecBody, codecLinkBody, codecLinkParams } from './schema.ts';
import { TemporalPayloadsSchema, TemporalCodecLinkSchema, presentPayloads, presentCodecLink } from '../../presenters/temporal-codec.ts';
import { CODEC_BASE_PATH, CODEC_LINK_MAX_MINUTES } from '../../../domain/temporal/codec-commands.ts';
import { NOT_AN_OPERATOR } from './operator-only.ts';
import type { AppContext } from '../../route.ts';

/** Histories carry large payloads (2 MiB each at most on the server, a third more as base64). */
const CODEC_BODY_LIMIT = 4 * 1024 * 1024;
const TAG = 'Admin';
const namespaceOf = (ctx: AppContext) => ctx.get('x-namespace') || undefined;

export const temporalCodecRoutes = [
  route({
    method: 'POST', path: `${CODEC_BASE_PATH}/decode`, tag: TAG, auth: 'user',
    summary: 'Decode (decrypt) Temporal payloads: remote codec protocol, for the `temporal` CLI (--codec-auth "Bearer …"); X-Namespace optional',
    body: codecBody, bodyLimitBytes: CODEC_BODY_LIMIT,
    success: { status: 200, description: 'The decoded payloads, in order', schema: TemporalPayloadsSchema },
    errors: { 400: 'Malformed payloads, a payload that fails authentication, or another namespace', 403: NOT_AN_OPERATOR },
    handler: async ({ ctx, body, action, services: s }) =>
      presentPayloads(await s.temporalCodec.decode(action, { namespace: namespaceOf(ctx), payloads: body.payloads })),
  }),
  route({
    method: 'POST', path: `${CODEC_BASE_PATH}/encode`, tag: TAG, auth: 'user',
    summary: 'Encode (encrypt) Temporal payloads: remote codec protocol; X-Namespace optional',
    body: codecBody, bodyLimitBytes: CODEC_BODY_LIMIT,
    success: { status: 200, description: 'The encoded payloads, in order', schema: TemporalPayloadsSchema },
    errors: { 400: 'Malformed payloads or another namespace', 403: NOT_AN_OPERATOR },
    handler: async ({ ctx, body, action, services: s }) =>
      presentPayloads(await s.temporalCodec.encode(action, { namespace: namespaceOf(ctx), payloads: body.payloads })),
  }),
  route({
    method: 'POST', path: `${CODEC_BASE_PATH}/links`, tag: TAG, auth: 'user',
    summary: `A codec endpoint URL for the Temporal UI's codec server setting, for this operator, valid ttl_minutes (default 60, at most ${CODEC_LINK_MAX_MINUTES})`,
    body: codecLinkBody,
    success: { status: 201, description: 'The codec link; it is a credential', schema: TemporalCodecLinkSchema },
    errors: { 403: NOT_AN_OPERATOR },
    handler: async ({ body, action, services: s }) => presentCodecLink(await s.temporalCodec.createLink(action, body.ttlMinutes)),
  }),
  route({
    method: 'POST', path: `${CODEC_BASE_PATH}/links/:token/decode`, tag: TAG, auth: 'public',
    summary: 'Decode Temporal payloads through a codec link (the Temporal UI calls this; the link is the credential)',
    params: codecLinkParams, secretParams: ['token'], body: codecBody, bodyLimitBytes: CODEC_BODY_LIMIT,
    success: { status: 200, description: 'The decoded payloads, in order', schema: TemporalPayloadsSchema },
    errors: { 400: 'Malformed payloads, a payload that fails authentication, or another namespace', 401: 'Invalid or expired codec link', 403: 'The link\'s account is no longer a platform operator' },
    handler: async ({ ctx, params, body, action, services: s }) =>
      presentPayloads(await s.temporalCodec.decode(action, { namespace: namespaceOf(ctx), payloads: body.payloads, linkToken: params.token })),
  }),
  route({
    method: 'POST', path: `${CODEC_BASE_PATH}/links/:token/encode`, tag: TAG, auth: 'public',
    summary: 'Encode Temporal payloads through a codec link (the Temporal UI calls this to send signals or start workflows)',
    params: codecLinkParams, secretParams: ['token'], body: codecBody, bodyLimitBytes: CODEC_BODY_LIMIT,
    success: { status: 200, description: 'The encoded payloads, in order', schema: TemporalPayloadsSchema },
    errors: { 400: 'Malformed payloads or another namespace', 401: 'Invalid or expired codec link', 403: 'The link\'s account is no longer a platform operator' },
    handler: async ({ ctx, params, body, action, services: s }) =>
      presentPayloads(await s.temporalCodec.encode(action, { namespace: namespaceOf(ctx), payloads: body.payloads, linkToken: params.token })),
  }),
];
