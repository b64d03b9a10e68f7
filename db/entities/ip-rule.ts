import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const IpRule = defineEntity({
  name: 'IpRule',
  tableName: 'ip_rules',
  properties: {
    id: p.uuid().primary(),
    orgId: p.uuid(),
    cidr: p.text(),
    ruleType: p.text().$type<'allow' | 'block'>(),
    description: p.text().nullable(),
    createdBy: p.uuid().nullable(),
    createdAt: p.datetime(),
  },
});
export type IpRule = InferEntity<typeof IpRule>;
