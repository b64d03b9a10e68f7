// Constraint names as PostgreSQL chooses them when a migration leaves them out, so entities and the
// migrated schema name the same constraint the same way: `<table>_<columns>_fkey` for a foreign key
// and `<table>_<columns>_key` for a unique constraint (MikroORM's own defaults end in `_foreign` and
// `_unique`). Primary keys (`<table>_pkey`), checks (`<table>_<column>_check`) and sequences
// (`<table>_<column>_seq`) already agree. Only the schema generator and diff use these names; no
// statement the app runs depends on them. Indexes the migrations name are named in the entities.
import { UnderscoreNamingStrategy } from '@mikro-orm/postgresql';

type IndexKind = Parameters<UnderscoreNamingStrategy['indexName']>[2];

export class PostgresConstraintNames extends UnderscoreNamingStrategy {
  override indexName(tableName: string, columns: string[], type: IndexKind): string {
    const table = tableName.includes('.') ? tableName.slice(tableName.indexOf('.') + 1) : tableName;
    if (type === 'foreign') return `${table}_${columns.join('_')}_fkey`;
    if (type === 'unique') return `${table}_${columns.join('_')}_key`;
    return super.indexName(tableName, columns, type);
  }
}
