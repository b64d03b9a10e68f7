// Health, key-backend health, the JWKS and the OpenAPI document itself.
import { z } from 'zod';
import { shape } from './registry.ts';

export const HealthSchema = shape('Health', z.object({ status: z.literal('ok'), version: z.string() }));
export const HsmHealthSchema = shape('HsmHealth', z.object({ status: z.literal('ok'), backend: z.enum(['local', 'pkcs11']) }));

export const JwksSchema = shape('Jwks', z.object({
  keys: z.array(z.object({ kty: z.string(), kid: z.string(), alg: z.string().optional(), use: z.string().optional() }).catchall(z.unknown())),
}), 'JSON Web Key Set: the public keys that verify access tokens');

export const OpenApiDocumentSchema = shape('OpenApiDocument', z.object({
  openapi: z.string(),
  info: z.object({ title: z.string(), version: z.string() }).catchall(z.unknown()),
  paths: z.record(z.string(), z.unknown()),
}).catchall(z.unknown()), 'This OpenAPI 3.1 document');
