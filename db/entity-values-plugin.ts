// The Kysely plugin behind query(em): values read come back in the entities' types (Date, number,
// bigint) and values written to jsonb columns go as JSON text (node-pg would send a JS array as a
// Postgres array). It does what MikroORM's own plugin does with `convertValues`, which rebuilt its
// column maps and re-walked every statement with metadata look-ups each time: on the secret-write
// and webhook-delivery paths that cost a third of their throughput (docs/benchmarks.md). Here a
// statement costs one walk to name its tables; the column rules are built once (entity-values.ts).
import {
  OperationNodeTransformer, ValueNode, ValuesNode, PrimitiveValueListNode, ValueListNode,
  type BinaryOperationNode, type ColumnUpdateNode, type InsertQueryNode, type KyselyPlugin,
  type OperationNode, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryId,
  type QueryResult, type RootOperationNode, type UnknownRow, type UpdateQueryNode,
} from 'kysely';
import type { EntityValues, TableValues, ValueConverter } from './entity-values.ts';

type AnyNode = OperationNode & Record<string, unknown>;

interface StatementScan {
  /** Tables the statement names, in order of appearance. */
  tables: string[];
  /** Alias → table, for columns written as `alias.column`. */
  aliases: Map<string, string>;
  /** Columns the statement inserts, sets or compares with a value. */
  valueColumns: Set<string>;
}

function nameOf(node: unknown): string | undefined {
  const n = node as AnyNode | undefined;
  if (n?.kind === 'TableNode') return ((n.table as AnyNode).identifier as { name: string }).name;
  if (n?.kind === 'AliasNode') return nameOf(n.node);
  return undefined;
}

function columnOf(node: unknown): string | undefined {
  const n = node as AnyNode | undefined;
  if (n?.kind === 'ColumnNode') return (n.column as { name: string }).name;
  if (n?.kind === 'ReferenceNode') return columnOf(n.column);
  return undefined;
}

function scanNode(node: AnyNode, scan: StatementScan): void {
  switch (node.kind) {
    case 'ValueNode':
    case 'PrimitiveValueListNode':
      return; // values are data, not nodes: never walk into a Buffer or a JSON document
    case 'TableNode': {
      const name = nameOf(node)!;
      if (!scan.tables.includes(name)) scan.tables.push(name);
      return;
    }
    case 'AliasNode': {
      const table = nameOf(node.node);
      const alias = (node.alias as AnyNode | undefined)?.name;
      if (table && typeof alias === 'string') scan.aliases.set(alias, table);
      break;
    }
    case 'InsertQueryNode':
      for (const column of (node.columns as AnyNode[] | undefined) ?? []) scan.valueColumns.add(columnOf(column)!);
      break;
    case 'ColumnUpdateNode':
      scan.valueColumns.add(columnOf(node.column)!);
      break;
    case 'BinaryOperationNode': {
      const column = columnOf(node.leftOperand);
      if (column) scan.valueColumns.add(column);
      break;
    }
  }
  for (const key in node) {
    const child = node[key];
    if (child === null || typeof child !== 'object') continue;
    if (Array.isArray(child)) {
      for (const item of child) if (item && typeof (item as AnyNode).kind === 'string') scanNode(item as AnyNode, scan);
    } else if (typeof (child as AnyNode).kind === 'string') {
      scanNode(child as AnyNode, scan);
    }
  }
}

/** A value bound for a jsonb column, as MikroORM's JsonType sends it. */
function jsonText(value: unknown): unknown {
  if (value == null || (typeof value === 'object' && 'kind' in value)) return value;
  return JSON.stringify(value);
}

function jsonValueNode(node: ValueNode): ValueNode {
  const text = jsonText(node.value);
  if (text === node.value) return node;
  return node.immediate ? ValueNode.createImmediate(text) : ValueNode.create(text);
}

/** Rewrites the values a statement sends to jsonb columns; run only when it sends some. */
class JsonValueWriter extends OperationNodeTransformer {
  readonly #targets: TableValues[] = [];
  readonly values: EntityValues;
  readonly scan: StatementScan;
  readonly statementTables: TableValues;

  constructor(values: EntityValues, scan: StatementScan, statementTables: TableValues) {
    super();
    this.values = values;
    this.scan = scan;
    this.statementTables = statementTables;
  }

  protected override transformInsertQuery(node: InsertQueryNode, queryId?: QueryId): InsertQueryNode {
    const target = this.values.table(nameOf(node.into) ?? '');
    this.#targets.push(target);
    try {
      const out = super.transformInsertQuery(node, queryId);
      const jsonAt = (out.columns ?? []).map((column) => target.json.has(columnOf(column)!));
      if (!out.values || !ValuesNode.is(out.values) || !jsonAt.includes(true)) return out;
      const rows = out.values.values.map((row) => {
        if (PrimitiveValueListNode.is(row)) {
          return PrimitiveValueListNode.create(row.values.map((v, i) => (jsonAt[i] ? jsonText(v) : v)));
        }
        return ValueListNode.create(row.values.map((v, i) => (jsonAt[i] && ValueNode.is(v) ? jsonValueNode(v) : v)));
      });
      return { ...out, values: ValuesNode.create(rows) };
    } finally {
      this.#targets.pop();
    }
  }

  protected override transformUpdateQuery(node: UpdateQueryNode, queryId?: QueryId): UpdateQueryNode {
    this.#targets.push(this.values.table(nameOf(node.table) ?? ''));
    try {
      return super.transformUpdateQuery(node, queryId);
    } finally {
      this.#targets.pop();
    }
  }

  protected override transformColumnUpdate(node: ColumnUpdateNode, queryId?: QueryId): ColumnUpdateNode {
    const out = super.transformColumnUpdate(node, queryId);
    const target = this.#targets.at(-1);
    if (!target?.json.has(columnOf(out.column)!) || !ValueNode.is(out.value)) return out;
    return { ...out, value: jsonValueNode(out.value) };
  }

  protected override transformBinaryOperation(node: BinaryOperationNode, queryId?: QueryId): BinaryOperationNode {
    const out = super.transformBinaryOperation(node, queryId);
    const column = columnOf(out.leftOperand);
    const right = out.rightOperand;
    if (!column || !(ValueNode.is(right) || PrimitiveValueListNode.is(right))) return out;
    const qualifier = nameOf((out.leftOperand as AnyNode).table) ?? (out.leftOperand as AnyNode).table;
    const owner = typeof qualifier === 'string' ? this.values.table(this.scan.aliases.get(qualifier) ?? qualifier) : this.statementTables;
    if (!owner.json.has(column)) return out;
    // `in (…)` lists (and arrays, which Kysely reads as one) hold one JSON value per item.
    const converted = ValueNode.is(right) ? jsonValueNode(right) : PrimitiveValueListNode.create(right.values.map(jsonText));
    return { ...out, rightOperand: converted };
  }
}

export class EntityValuesPlugin implements KyselyPlugin {
  readonly #resultConverters = new WeakMap<QueryId, ReadonlyMap<string, ValueConverter>>();
  readonly values: EntityValues;

  constructor(values: EntityValues) {
    this.values = values;
  }

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    const scan: StatementScan = { tables: [], aliases: new Map(), valueColumns: new Set() };
    scanNode(node as unknown as AnyNode, scan);
    if (scan.tables.length === 0) return node;
    const tables = this.values.tables(scan.tables);
    if (tables.output.size > 0) this.#resultConverters.set(queryId, tables.output);
    for (const column of scan.valueColumns) {
      if (tables.json.has(column)) return new JsonValueWriter(this.values, scan, tables).transformNode(node, queryId);
    }
    return node;
  }

  async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const converters = this.#resultConverters.get(queryId);
    if (!converters) return result;
    for (const row of result.rows) {
      for (const column in row) {
        const convert = converters.get(column);
        const value = row[column];
        if (convert && value != null) row[column] = convert(value);
      }
    }
    return result;
  }
}
