// Run by schema-entities.test.ts under Node 24 (MikroORM is ESM only; jest runs CommonJS). Opens
// the ORM exactly as the app does (db/orm.ts: every entity, the migrations table skipped) against
// the migrated test database and prints, as JSON: the statements MikroORM would run to make the
// database match the entities, every table in the database, and every table an entity maps.
// Usage: DATABASE_URL=… schema-entities.probe.ts
import { openDb } from '../../db/orm.ts';

const orm = await openDb(process.env.DATABASE_URL!, 1);
try {
  // safe: false and dropTables: true (the defaults, spelled out): drops count as differences too.
  const sql = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: true });
  const statements = sql.split(/;\s*\n/).map((s) => s.trim().replace(/;$/, '')).filter((s) => s !== '');
  const tables = (await orm.em.fork().execute<{ name: string }[]>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
  )).map((r) => r.name);
  const entityTables = [...orm.getMetadata().getAll().values()].map((m) => m.tableName).sort();
  process.stdout.write(JSON.stringify({ statements, tables, entityTables }));
} finally {
  await orm.close();
}
