// query(em) hands values over in the entities' types both ways (db/entity-values-plugin.ts): what
// the probe wrote and read back through it, against the migrated test database, in a transaction
// it rolled back. The MikroORM side runs in entity-values.probe.ts (Node 24, ESM).
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { projectRoot } from '../helpers/stack.ts';

type Field = { type: string; value: unknown };
type Probe = {
  insertedOrg: Record<string, Field>; agent: Record<string, Field>; upserted: Record<string, Field>;
  joined: Record<string, Field>; raw: Record<string, Field>;
  storedJsonTypes: { scopes: string; vault_ids: string }; comparedJson: number; comparedJsonList: number;
};

let probe: Probe;

beforeAll(() => {
  const out = execFileSync('sh', [path.join(projectRoot, 'bin', 'node24'), path.join(projectRoot, 'test/integration/entity-values.probe.ts')], {
    cwd: projectRoot, env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL! },
  });
  probe = JSON.parse(out.toString()) as Probe;
}, 60_000);

test('timestamps come back as Dates, also from RETURNING; nulls stay null', () => {
  expect(probe.insertedOrg.created_at!.type).toBe('Date');
  expect(probe.insertedOrg.billing_period_end).toEqual({ type: 'null', value: null });
  expect(probe.agent.created_at!.type).toBe('Date');
  expect(probe.agent.intents_api_enabled).toEqual({ type: 'boolean', value: false });
});

test('jsonb arrays are stored as JSON arrays and read back as arrays (insert, update, upsert)', () => {
  expect(probe.storedJsonTypes).toEqual({ scopes: 'array', vault_ids: 'array' });
  expect(probe.agent.scopes).toEqual({ type: 'array', value: ['vault:read', 'vault:write'] });
  expect(probe.agent.tx_to_allowlist).toEqual({ type: 'array', value: [] });
  expect(probe.agent.tx_allowed_chains).toEqual({ type: 'array', value: ['base'] });
  expect(probe.agent.vault_ids!.type).toBe('array');
  expect(probe.agent.execution_guardrails).toEqual({ type: 'object', value: { max: 3 } });
  expect(probe.upserted.eip712_domain_allowlist).toEqual({ type: 'array', value: [{ name: 'x' }] });
});

test('a jsonb column compared with a value, or a list of values, is compared as JSON', () => {
  expect(probe.comparedJson).toBe(1);
  expect(probe.comparedJsonList).toBe(1);
});

test('int8 comes back as number, numeric as bigint, date as its text, through aliases in a join', () => {
  expect(probe.joined.chain_id).toEqual({ type: 'number', value: 8453 });
  expect(probe.joined.nonce).toEqual({ type: 'number', value: 7 });
  expect(probe.joined.value_wei).toEqual({ type: 'bigint', value: '12345678901234567890123' });
  expect(probe.joined.reserved_day).toEqual({ type: 'string', value: '2026-11-26' });
  expect(probe.joined.created_at!.type).toBe('Date');
  expect(probe.joined.scopes!.type).toBe('array');
  expect(probe.joined.name).toEqual({ type: 'string', value: 'probe' });
});

test('a raw statement is left as the driver returns it', () => {
  expect(probe.raw.created_at!.type).toBe('string');
});
