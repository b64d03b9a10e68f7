import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Invitation = defineEntity({
  name: 'Invitation',
  tableName: 'invitations',
  properties: {
    id: p.uuid().primary(),
    orgId: p.uuid(),
    email: p.text(),
    role: p.text().$type<'admin' | 'member'>(),
    tokenDigest: p.text(),
    invitedBy: p.uuid().nullable(),
    expiresAt: p.datetime(),
    acceptedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type Invitation = InferEntity<typeof Invitation>;
