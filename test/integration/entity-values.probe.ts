// Run by entity-values.test.ts under Node 24 (MikroORM is ESM only; jest runs CommonJS). Writes and
// reads rows through query(em) inside a transaction it rolls back, and prints, as JSON, what came
// back and in which JS types, so the test can hold db/entity-values-plugin.ts to the entities' types.
// Usage: DATABASE_URL=… entity-values.probe.ts
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { probeInRollback } from '../helpers/rolled-back-probe.ts';
import { query } from '../../db/query.ts';

const typeOf = (v: unknown): string => (v === null ? 'null' : v instanceof Date ? 'Date' : Array.isArray(v) ? 'array' : typeof v);
const shape = (row: Record<string, unknown> | undefined) =>
  Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, { type: typeOf(v), value: typeof v === 'bigint' ? v.toString() : v }]));

await probeInRollback(async (em) => {
  const out: Record<string, unknown> = {};
  const db = query(em);
  const orgId = randomUUID();
  const agentId = randomUUID();
  out.insertedOrg = shape(await db.insertInto('organizations').values({ id: orgId, name: 'values probe' })
    .returning(['id', 'created_at', 'billing_period_end']).executeTakeFirst());
  // jsonb arrays and a jsonb string go as JSON, not as Postgres arrays or bare text.
  await db.insertInto('agents').values({
    id: agentId, org_id: orgId, name: 'probe', status: 'active',
    scopes: ['vault:read', 'vault:write'], tx_to_allowlist: [], execution_guardrails: { max: 3 },
  }).execute();
  await db.updateTable('agents').set({ vault_ids: [orgId], tx_allowed_chains: ['base'] }).where('id', '=', agentId).execute();
  out.agent = shape(await db.selectFrom('agents')
    .select(['scopes', 'vault_ids', 'tx_to_allowlist', 'tx_allowed_chains', 'execution_guardrails', 'created_at', 'intents_api_enabled'])
    .where('id', '=', agentId).executeTakeFirst());
  out.storedJsonTypes = (await sql<{ scopes: string; vault_ids: string }>`select jsonb_typeof(scopes) as scopes, jsonb_typeof(vault_ids) as vault_ids from agents where id = ${agentId}`.execute(db)).rows[0];
  // A jsonb column compared with a value: the value is sent as JSON too.
  out.comparedJson = (await db.selectFrom('agents as a').select('a.id').where('a.execution_guardrails', '=', { max: 3 })
    .where('a.id', '=', agentId).execute()).length;
  out.comparedJsonList = (await db.selectFrom('agents').select('id').where('name', 'in', ['probe', 'other'])
    .where('tx_to_allowlist', 'in', [[], ['0x1']] as never).where('id', '=', agentId).execute()).length;
  // Upsert: the ON CONFLICT set list converts the same way.
  await db.insertInto('agents').values({ id: agentId, org_id: orgId, name: 'probe', status: 'active' })
    .onConflict((oc) => oc.column('id').doUpdateSet({ eip712_domain_allowlist: [{ name: 'x' }] })).execute();
  out.upserted = shape(await db.selectFrom('agents').select('eip712_domain_allowlist').where('id', '=', agentId).executeTakeFirst());
  // int8 as number, numeric as bigint, a date as the entity's string, in a join with aliases.
  await db.insertInto('agent_transactions').values({
    id: randomUUID(), org_id: orgId, agent_id: agentId, chain: 'base', chain_id: 8453, to_address: '0x0',
    value_wei: 12345678901234567890123n, nonce: 7, status: 'pending', reserved_day: '2026-11-26', created_by: 'probe',
  }).execute();
  out.joined = shape(await db.selectFrom('agent_transactions as t').innerJoin('agents as a', 'a.id', 't.agent_id')
    .select(['t.chain_id', 't.value_wei', 't.nonce', 't.reserved_day', 't.created_at', 'a.name', 'a.scopes'])
    .where('t.agent_id', '=', agentId).executeTakeFirst());
  // A raw statement names no table the plugin can see: values come back as the driver gives them.
  out.raw = shape((await sql<Record<string, unknown>>`select created_at from organizations where id = ${orgId}`.execute(db)).rows[0]);
  return out;
});
