// Registers the custom search attributes (domain/temporal/search-attribute-keys.ts) in the
// namespace, once at worker start: a workflow that upserts an unregistered attribute fails its
// task. Lists first and adds only what is missing, so a restart costs one call; two workers
// starting together may both add the same name, and the loser's AlreadyExists is fine.
import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import proto from '@temporalio/proto';
import { VAULT_SEARCH_ATTRIBUTES } from './search-attribute-keys.ts';

const IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;
const GRPC_ALREADY_EXISTS = 6;

const INDEXED: Record<SearchAttributeType, proto.temporal.api.enums.v1.IndexedValueType> = {
  TEXT: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  INT: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  DOUBLE: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  BOOL: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  DATETIME: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KEYWORD_LIST: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** Adds the missing keys; returns the names it added. Throws if a name exists with another type. */
export async function ensureSearchAttributes(client: Client, namespace: string,
  keys: readonly { name: string; type: SearchAttributeType }[] = VAULT_SEARCH_ATTRIBUTES): Promise<string[]> {
  const operator = client.connection.operatorService;
  const { customAttributes } = await operator.listSearchAttributes({ namespace });
  const existing = customAttributes ?? {};
  const missing: Record<string, proto.temporal.api.enums.v1.IndexedValueType> = {};
  for (const key of keys) {
    const want = INDEXED[key.type];
    const have = existing[key.name];
    if (have === undefined) missing[key.name] = want;
    else if (have !== want) {
      throw new Error(`search attribute ${key.name} exists in namespace ${namespace} as ${IndexedValueType[have]}, not ${IndexedValueType[want]}`);
    }
  }
  const names = Object.keys(missing);
  if (names.length === 0) return [];
  try {
    await operator.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (e) {
    // Another process added them in between: all is well if every one is there now.
    if (!(isGrpcServiceError(e) && e.code === GRPC_ALREADY_EXISTS)) throw e;
    const again = (await operator.listSearchAttributes({ namespace })).customAttributes ?? {};
    const still = names.filter((n) => again[n] === undefined);
    if (still.length > 0) throw new Error(`could not register search attributes ${still.join(', ')}: ${String(e)}`);
  }
  return names;
}
