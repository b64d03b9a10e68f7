import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    name: p.text(),
    keyPrefix: p.text(),
    keyDigest: p.text(),
    scopes: p.json<string[]>(),
    isActive: p.boolean(),
    expiresAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
