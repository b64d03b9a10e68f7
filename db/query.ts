// The typed query builder every repository uses for statements the EntityManager cannot say
// simply (conditional, joined, bulk): MikroORM's Kysely, typed from the entities (db/entities),
// bound to the EntityManager's current transaction (em.transactional), with values converted to
// the entities' types both ways (timestamptz as Date, int8 as number, numeric wei as bigint;
// db/entity-values-plugin.ts).
// A cap or a compare-and-swap stays one atomic statement, and the compiler checks its columns.
import type { EntityManager, MetadataStorage } from '@mikro-orm/postgresql';
import type { Kysely } from 'kysely';
import type { Database } from './entities/index.ts';
import { EntityValues } from './entity-values.ts';
import { EntityValuesPlugin } from './entity-values-plugin.ts';

export type Query = Kysely<Database>;

/** One plugin per ORM: its column rules are built from the metadata once. */
const plugins = new WeakMap<MetadataStorage, EntityValuesPlugin>();

function valuesPlugin(em: EntityManager): EntityValuesPlugin {
  const metadata = em.getMetadata();
  let plugin = plugins.get(metadata);
  if (!plugin) {
    plugin = new EntityValuesPlugin(new EntityValues(metadata, em.getPlatform()));
    plugins.set(metadata, plugin);
  }
  return plugin;
}

export function query(em: EntityManager): Query {
  return em.getKysely<Database>().withPlugin(valuesPlugin(em));
}

/**
 * Kysely raises the driver's own errors; callers that tell constraint violations apart do it by
 * MikroORM's exception types (UniqueConstraintViolationException …). Wrap such a write in this.
 */
export function withOrmErrors<T>(em: EntityManager, work: Promise<T>): Promise<T> {
  return work.catch((e: Error) => { throw em.getDriver().convertException(e); });
}
