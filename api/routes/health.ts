// Health, key-backend health, the JWKS and the OpenAPI document: all public.
import { route, json } from '../route.ts';
import { Problem } from '../../domain/errors.ts';
import { buildOpenApi } from '../openapi.ts';
import { VERSION } from '../../domain/version.ts';
import type { RouteDef } from '../route.ts';

export function healthRoutes(all: () => RouteDef[]): RouteDef[] {
  let openapi: unknown;
  return [
    route({
      method: 'GET', path: '/v1/health', tag: 'Health', auth: 'public',
      summary: 'Liveness', success: { status: 200, description: '{status: ok}' },
      async handler({ ctx }) { json(ctx, 200, { status: 'ok', version: VERSION }); },
    }),
    route({
      method: 'GET', path: '/v1/health/hsm', tag: 'Health', auth: 'public',
      summary: 'The key backend answers', success: { status: 200, description: '{status: ok}' }, errors: { 503: 'Key backend unavailable' },
      async handler({ ctx, services: s }) {
        if (!(await s.kms.health().catch(() => false))) throw new Problem(503, `The key backend (${s.kms.backend}) is not answering`);
        json(ctx, 200, { status: 'ok', backend: s.kms.backend });
      },
    }),
    route({
      method: 'GET', path: '/.well-known/jwks.json', tag: 'Health', auth: 'public',
      summary: 'Public keys that verify access tokens', success: { status: 200, description: 'JWKS' },
      async handler({ ctx, services: s }) {
        ctx.set('Cache-Control', 'public, max-age=300');
        json(ctx, 200, s.jwt.publicJwks());
      },
    }),
    route({
      method: 'GET', path: '/v1/openapi.json', tag: 'Health', auth: 'public',
      summary: 'This OpenAPI 3.1 document', success: { status: 200, description: 'OpenAPI document' },
      async handler({ ctx, services: s }) {
        openapi ??= buildOpenApi(all(), s.config.publicUrl, VERSION);
        json(ctx, 200, openapi);
      },
    }),
  ];
}
