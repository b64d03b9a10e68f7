// Health, key-backend health, the JWKS and the OpenAPI document: all public.
import { route, type RouteDef } from '../route.ts';
import { Problem } from '../../domain/errors.ts';
import { buildOpenApi } from '../openapi.ts';
import { VERSION } from '../../domain/version.ts';
import { HealthSchema, HsmHealthSchema, JwksSchema, OpenApiDocumentSchema } from '../presenters/health.ts';

export function healthRoutes(all: () => RouteDef[]): RouteDef[] {
  let openapi: ReturnType<typeof buildOpenApi> | undefined;
  return [
    route({
      method: 'GET', path: '/v1/health', tag: 'Health', auth: 'public',
      summary: 'Liveness',
      success: { status: 200, description: 'The service answers', schema: HealthSchema },
      handler: async () => ({ status: 'ok' as const, version: VERSION }),
    }),
    route({
      method: 'GET', path: '/v1/health/hsm', tag: 'Health', auth: 'public',
      summary: 'The key backend answers',
      success: { status: 200, description: 'The key backend answers', schema: HsmHealthSchema },
      errors: { 503: 'Key backend unavailable' },
      handler: async ({ services: s }) => {
        if (!(await s.kms.health().catch(() => false))) throw new Problem(503, `The key backend (${s.kms.backend}) is not answering`);
        return { status: 'ok' as const, backend: s.kms.backend };
      },
    }),
    route({
      method: 'GET', path: '/.well-known/jwks.json', tag: 'Health', auth: 'public',
      summary: 'Public keys that verify access tokens',
      success: { status: 200, description: 'JWKS', schema: JwksSchema },
      handler: async ({ ctx, services: s }) => {
        ctx.set('Cache-Control', 'public, max-age=300');
        return s.jwt.publicJwks() as { keys: { kty: string; kid: string }[] };
      },
    }),
    route({
      method: 'GET', path: '/v1/openapi.json', tag: 'Health', auth: 'public',
      summary: 'This OpenAPI 3.1 document',
      success: { status: 200, description: 'OpenAPI document', schema: OpenApiDocumentSchema },
      handler: async ({ services: s }) => {
        openapi ??= buildOpenApi(all(), s.config.publicUrl, VERSION, s.config.dashboardPrefix);
        return openapi;
      },
    }),
  ];
}
