import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p.uuid().primary(),
    name: p.text(),
    billingTier: p.text(),
    createdAt: p.datetime(),
  },
});
export type Organization = InferEntity<typeof Organization>;
