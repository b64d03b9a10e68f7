// The execution_bindings, execution_events and execution_rate_windows tables (migration 0022):
// every statement about their rows. Commands and the executor decide; this file only reads and
// writes. Rows hold where a credential is kept, never the credential.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query, withOrmErrors } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { isUuid } from '../ids.ts';
import type { BindingGuardrails, HttpConfig } from './binding-config.ts';
import type { InlineLocation } from './credential-store.ts';

export type CredentialSourceType = 'inline' | 'vault_ref';

const COLUMNS = [
  'id', 'org_id', 'agent_id', 'name', 'binding_type', 'config', 'guardrails', 'is_active', 'credential_source_type',
  'credential_vault_id', 'credential_path', 'inline_vault_id', 'inline_path', 'inline_version', 'created_by', 'created_at', 'updated_at',
] as const;

/** A binding; its config and guardrails are what binding-config.ts let in (the entity types that jsonb as a plain record). */
export type BindingRow = Omit<Pick<Selectable<Database['execution_bindings']>, (typeof COLUMNS)[number]>, 'config' | 'guardrails'>
  & { config: HttpConfig; guardrails: BindingGuardrails };


/** The credential columns of a row: none, a vault reference, or an inline location. */
export type CredentialColumns = Pick<BindingRow, 'credential_source_type' | 'credential_vault_id' | 'credential_path' | 'inline_vault_id' | 'inline_path' | 'inline_version'>;

export const NO_CREDENTIAL: CredentialColumns = {
  credential_source_type: null, credential_vault_id: null, credential_path: null, inline_vault_id: null, inline_path: null, inline_version: null,
};

export const inlineOf = (b: CredentialColumns): InlineLocation | null =>
  (b.credential_source_type === 'inline' && b.inline_vault_id && b.inline_path && b.inline_version
    ? { vaultId: b.inline_vault_id, path: b.inline_path, version: b.inline_version } : null);

/** Exactly the credential columns of `b`. */
const credentialOf = (b: CredentialColumns): CredentialColumns => ({
  credential_source_type: b.credential_source_type, credential_vault_id: b.credential_vault_id, credential_path: b.credential_path,
  inline_vault_id: b.inline_vault_id, inline_path: b.inline_path, inline_version: b.inline_version,
});

export type NewBinding = Omit<BindingRow, 'created_at' | 'updated_at' | 'is_active'>;

/** A second binding of the agent with the same name raises the unique violation of execution_bindings_name_unique. */
export async function insertBinding(tx: EntityManager, b: NewBinding): Promise<BindingRow> {
  return await withOrmErrors(tx, query(tx).insertInto('execution_bindings').values({
    id: b.id, org_id: b.org_id, agent_id: b.agent_id, name: b.name, binding_type: b.binding_type, config: b.config, guardrails: b.guardrails,
    ...credentialOf(b), created_by: b.created_by,
  }).returning(COLUMNS).executeTakeFirstOrThrow()) as BindingRow;
}

export async function listBindings(em: EntityManager, orgId: string, agentId: string): Promise<BindingRow[]> {
  return await query(em).selectFrom('execution_bindings').select(COLUMNS).where('org_id', '=', orgId).where('agent_id', '=', agentId)
    .orderBy('created_at').orderBy('id').execute() as BindingRow[];
}

/** One binding of the agent by id; `lock` takes the row for a change. */
export async function findBinding(em: EntityManager, orgId: string, agentId: string, id: string, lock = false): Promise<BindingRow | null> {
  if (!isUuid(id)) return null;
  const q = query(em).selectFrom('execution_bindings').select(COLUMNS).where('org_id', '=', orgId).where('agent_id', '=', agentId).where('id', '=', id);
  return (await (lock ? q.forUpdate() : q).executeTakeFirst() as BindingRow | undefined) ?? null;
}

/** One binding of the agent by id, or else by name. */
export async function findBindingByIdOrName(em: EntityManager, orgId: string, agentId: string, ref: string): Promise<BindingRow | null> {
  const byId = await findBinding(em, orgId, agentId, ref);
  if (byId) return byId;
  const row = await query(em).selectFrom('execution_bindings').select(COLUMNS)
    .where('org_id', '=', orgId).where('agent_id', '=', agentId).where('name', '=', ref).executeTakeFirst();
  return (row as BindingRow | undefined) ?? null;
}

export type BindingChanges = { config?: HttpConfig; guardrails?: BindingGuardrails; is_active?: boolean; credential?: CredentialColumns };

export async function updateBinding(tx: EntityManager, id: string, c: BindingChanges): Promise<BindingRow> {
  return await withOrmErrors(tx, query(tx).updateTable('execution_bindings').set({
    updated_at: sql`now()`,
    ...(c.config !== undefined && { config: c.config }),
    ...(c.guardrails !== undefined && { guardrails: c.guardrails }),
    ...(c.is_active !== undefined && { is_active: c.is_active }),
    ...(c.credential !== undefined && credentialOf(c.credential)),
  }).where('id', '=', id).returning(COLUMNS).executeTakeFirstOrThrow()) as BindingRow;
}

export async function deleteBinding(tx: EntityManager, id: string): Promise<boolean> {
  const row = await query(tx).deleteFrom('execution_bindings').where('id', '=', id).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** The organization's live standard vault with this id, if there is one (a vault_ref credential's vault). */
export async function isStandardVaultOf(em: EntityManager, orgId: string, vaultId: string): Promise<boolean> {
  const row = await query(em).selectFrom('vaults').select('id')
    .where('id', '=', vaultId).where('org_id', '=', orgId).where('kind', '=', 'standard').where('deleted_at', 'is', null).executeTakeFirst();
  return row !== undefined;
}

/** Marks the secret at `path` of the reserved vault deleted (an inline credential going away); the ids of the secrets it marked. */
export async function markCredentialSecretDeleted(tx: EntityManager, vaultId: string, path: string): Promise<string[]> {
  const rows = await query(tx).updateTable('secrets').set({ deleted_at: sql`coalesce(deleted_at, now())`, updated_at: sql`now()` })
    .where('vault_id', '=', vaultId).where('path', '=', path).returning('id').execute();
  return rows.map((r) => r.id);
}

// ---- execution events ----

export type ExecutionStatus = 'success' | 'failed' | 'denied';

const EVENT_COLUMNS = [
  'id', 'org_id', 'agent_id', 'binding_id', 'binding_name', 'intent_type', 'execution_mode', 'status', 'request_summary', 'result_summary',
  'error_message', 'duration_ms', 'cost_cents', 'redactions_applied', 'request_id', 'created_at',
] as const;

export type ExecutionEventRow = Pick<Selectable<Database['execution_events']>, (typeof EVENT_COLUMNS)[number]>;

export type NewExecutionEvent = Omit<ExecutionEventRow, 'created_at' | 'cost_cents' | 'execution_mode'>;

export async function insertExecutionEvent(em: EntityManager, e: NewExecutionEvent): Promise<void> {
  await query(em).insertInto('execution_events').values({
    id: e.id, org_id: e.org_id, agent_id: e.agent_id, binding_id: e.binding_id, binding_name: e.binding_name, intent_type: e.intent_type,
    status: e.status, request_summary: e.request_summary, result_summary: e.result_summary, error_message: e.error_message,
    duration_ms: e.duration_ms, redactions_applied: e.redactions_applied, request_id: e.request_id,
  }).execute();
}

/** The agent's events, newest first. */
export function listExecutionEvents(em: EntityManager, orgId: string, agentId: string, limit: number, offset: number): Promise<ExecutionEventRow[]> {
  return query(em).selectFrom('execution_events').select(EVENT_COLUMNS).where('org_id', '=', orgId).where('agent_id', '=', agentId)
    .orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset).execute();
}

// ---- max_requests_per_minute ----

/** The current calendar minute, as the database's clock has it. */
const thisMinute = sql<Date>`date_trunc('minute', now())`;

/**
 * Takes one request of the current calendar minute for `subject` unless `cap` are taken: one
 * conditional upsert, so concurrent requests on any replica never overshoot. False when full.
 */
export async function takeMinuteSlot(tx: EntityManager, subject: string, cap: number): Promise<boolean> {
  const q = query(tx);
  const taken = await q.insertInto('execution_rate_windows').values({ subject, window_start: thisMinute, count: 1 })
    .onConflict((oc) => oc.columns(['subject', 'window_start']).doUpdateSet({ count: sql`execution_rate_windows.count + 1` })
      .where('execution_rate_windows.count', '<', cap))
    .returning('count').executeTakeFirst();
  // The first request of a minute clears the subject's earlier minutes.
  if (taken?.count === 1) await q.deleteFrom('execution_rate_windows').where('subject', '=', subject).where('window_start', '<', thisMinute).execute();
  return taken !== undefined && taken.count <= cap;
}

/** Seconds until the next calendar minute (Retry-After of a full window). */
export async function secondsToNextMinute(em: EntityManager): Promise<number> {
  const row = await query(em).selectNoFrom(sql<number>`ceil(extract(epoch FROM date_trunc('minute', now()) + interval '1 minute' - now()))::int`.as('s'))
    .executeTakeFirst();
  return Math.max(1, row?.s ?? 60);
}
