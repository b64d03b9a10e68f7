// The entities (db/entities) and the schema the migrations build agree: asked for the statements
// that would make the test stack's migrated database match the entities, MikroORM has none to
// offer, apart from the named exceptions below. So every table, column (type, nullability,
// default), primary key, foreign key (and its ON DELETE rule), unique constraint, index (partial
// ones with their predicate) and check constraint of the migrations is declared in an entity, and
// nothing more. The MikroORM side runs in schema-entities.probe.ts (Node 24, ESM).
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { projectRoot } from '../helpers/stack.ts';

type Probe = { statements: string[]; tables: string[]; entityTables: string[] };

/** db/migrate.ts's own record of applied migrations: deliberately no entity (openDb skips it). */
const MIGRATIONS_TABLE = 'schema_migrations';

/**
 * Statements MikroORM proposes although entity and database agree, each with the reason. Keep it
 * exact: a statement is excused only verbatim, and an excuse that no longer occurs fails the test.
 */
const KNOWN_DIFFERENCES: { statement: string; reason: string }[] = [
  // MikroORM 7.2.1 reads an index column's sort order by searching the CREATE INDEX text for the
  // column's name without word boundaries (PostgreSqlSchemaHelper.parseIndexColumnsFromExpression):
  // for `(webhook_id, created_at DESC, id DESC)` the `id` it finds is the end of `webhook_id`, so
  // `id DESC` is read back as ascending and the index (declared exactly as migration 0010 creates
  // it) would be dropped and created again on every comparison.
  ...['drop index "webhook_deliveries_history_idx"',
    'create index "webhook_deliveries_history_idx" on "webhook_deliveries" ("webhook_id", "created_at" DESC, "id" DESC)',
  ].map((statement) => ({ statement, reason: 'MikroORM misreads the sort order of column `id` after `webhook_id` (see above)' })),
  // Migration 0042's refuse_statement(text): a plpgsql function that only raises, called from the
  // final SELECT of the family recording statement (family-record-repository.ts). MikroORM 7.2 lists
  // plain functions as routines (trigger functions it skips) and would drop one no `Routine` in the
  // ORM config declares; this project keeps its few hand-written functions in migrations.
  { statement: 'drop function if exists "refuse_statement"(text)', reason: 'a migration-owned function, not declared as a MikroORM Routine (see above)' },
];

let probe: Probe;

beforeAll(() => {
  const out = execFileSync('sh', [path.join(projectRoot, 'bin', 'node24'), path.join(projectRoot, 'test/integration/schema-entities.probe.ts')], {
    cwd: projectRoot, env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL! },
  });
  probe = JSON.parse(out.toString()) as Probe;
}, 60_000);

test('every table the migrations create has exactly one entity', () => {
  const tables = probe.tables.filter((t) => t !== MIGRATIONS_TABLE);
  expect(probe.tables).toContain(MIGRATIONS_TABLE);
  expect(probe.entityTables).toEqual([...new Set(probe.entityTables)]);
  expect(probe.entityTables).toEqual(tables);
});

test('MikroORM finds nothing to change between the entities and the migrated schema', () => {
  const excused = new Set(KNOWN_DIFFERENCES.map((k) => k.statement));
  const unexpected = probe.statements.filter((s) => !excused.has(s));
  if (unexpected.length > 0) {
    throw new Error(`The entities and the migrated schema differ. MikroORM would run:\n\n${unexpected.join(';\n')};\n\n`
      + 'Fix the entity in db/entities (or, for something MikroORM cannot express, add the exact statement to KNOWN_DIFFERENCES with the reason).');
  }
  const stale = KNOWN_DIFFERENCES.filter((k) => !probe.statements.includes(k.statement));
  if (stale.length > 0) {
    throw new Error(`These known differences no longer occur; remove them from KNOWN_DIFFERENCES:\n${stale.map((k) => k.statement).join('\n')}`);
  }
});
