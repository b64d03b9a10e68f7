// How a column's values cross between the driver and the entities' types, per table, read once
// from the entity metadata: timestamptz arrives from the driver as text and leaves as a Date, int8
// and numeric leave as number or bigint (BigIntType), jsonb values are sent as JSON text. The rules
// are MikroORM's own (its Kysely plugin's prepareOutputValue / prepareInputValue); they are worked
// out here once per table instead of on every statement (db/entity-values-plugin.ts uses them).
// Types only: jest loads repositories as CommonJS, where MikroORM (ESM only) cannot be required.
import type { EntityProperty, MetadataStorage, Platform } from '@mikro-orm/postgresql';

export type ValueConverter = (value: unknown) => unknown;

export interface TableValues {
  /** Column (and property) name → conversion of a non-null value read from the driver. */
  readonly output: ReadonlyMap<string, ValueConverter>;
  /** Columns whose values are sent as JSON text. */
  readonly json: ReadonlySet<string>;
}

const NO_VALUES: TableValues = { output: new Map(), json: new Set() };

const columnType = (prop: EntityProperty): string => prop.columnTypes?.[0] ?? '';
const isJsonColumn = (prop: EntityProperty): boolean => ['json', 'jsonb'].includes(columnType(prop));

/** Custom types whose values node-pg already hands over in the entity's type (uuid, bytea, json). */
const passesThrough = (prop: EntityProperty): boolean => isJsonColumn(prop) || ['uuid', 'bytea'].includes(columnType(prop));

function outputConverter(prop: EntityProperty, platform: Platform): ValueConverter | undefined {
  const type = prop.customType;
  if (type) return passesThrough(prop) ? undefined : (value) => type.convertToJSValue(value, platform);
  if (prop.runtimeType !== 'Date' || platform.isNumericProperty(prop)) return undefined;
  // The driver keeps timestamps as text (MikroORM's type parsers); read them in the ORM's zone.
  const zone = platform.getTimezone();
  if (!zone || zone === 'local') return (value) => platform.parseDate(value as string);
  return (value) => {
    if (value instanceof Date) return value;
    const text = String(value);
    const zoned = typeof value === 'number' || text.includes('+') || text.lastIndexOf('-') > 10 || text.endsWith('Z');
    return platform.parseDate(zoned ? (value as string | number) : text + zone);
  };
}

function tableValues(props: readonly EntityProperty[], platform: Platform): TableValues {
  const output = new Map<string, ValueConverter>();
  const json = new Set<string>();
  for (const prop of props) {
    const convert = outputConverter(prop, platform);
    const isJson = isJsonColumn(prop);
    for (const name of [...(prop.fieldNames ?? []), prop.name]) {
      if (convert && !output.has(name)) output.set(name, convert);
      if (isJson) json.add(name);
    }
  }
  return { output, json };
}

/** Per table, and per set of tables a statement reads, built on first use and kept. */
export class EntityValues {
  readonly #byTable = new Map<string, TableValues>();
  readonly #merged = new Map<string, TableValues>();

  constructor(metadata: MetadataStorage, platform: Platform) {
    for (const meta of metadata) {
      if (meta.tableName) this.#byTable.set(meta.tableName, tableValues(meta.props, platform));
    }
  }

  table(name: string): TableValues {
    return this.#byTable.get(name) ?? NO_VALUES;
  }

  /** The columns of every named table; where two tables share a column name the first wins. */
  tables(names: readonly string[]): TableValues {
    if (names.length === 1) return this.table(names[0]!);
    const key = names.join(' ');
    let merged = this.#merged.get(key);
    if (!merged) {
      const output = new Map<string, ValueConverter>();
      const json = new Set<string>();
      for (const name of names) {
        const one = this.table(name);
        for (const [column, convert] of one.output) if (!output.has(column)) output.set(column, convert);
        for (const column of one.json) json.add(column);
      }
      merged = { output, json };
      this.#merged.set(key, merged);
    }
    return merged;
  }
}
