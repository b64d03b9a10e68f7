import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.uuid().primary(),
    orgId: p.uuid().nullable(),
    role: p.text().$type<'owner' | 'admin' | 'member'>().nullable(),
    email: p.text(),
    displayName: p.text().nullable(),
    passwordHash: p.text().nullable(),
    authMethod: p.text(),
    emailVerified: p.boolean(),
    marketingEmails: p.boolean(),
    requirePasskeyForVaults: p.boolean(),
    failedLogins: p.integer(),
    lockedUntil: p.datetime().nullable(),
    status: p.text().$type<'active' | 'deleting'>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type User = InferEntity<typeof User>;
