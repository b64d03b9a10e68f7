// The execution_bindings, execution_events and execution_rate_windows tables (migration 0022):
// every statement about their rows. Commands and the executor decide; this file only reads and
// writes. Rows hold where a credential is kept, never the credential.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../ids.ts';
import type { BindingGuardrails, HttpConfig } from './binding-config.ts';
import type { InlineLocation } from './credential-store.ts';

export type CredentialSourceType = 'inline' | 'vault_ref';

export type BindingRow = {
  id: string; org_id: string; agent_id: string; name: string; binding_type: 'http';
  config: HttpConfig; guardrails: BindingGuardrails; is_active: boolean;
  credential_source_type: CredentialSourceType | null;
  credential_vault_id: string | null; credential_path: string | null;
  inline_vault_id: string | null; inline_path: string | null; inline_version: number | null;
  created_by: string; created_at: string | Date; updated_at: string | Date;
};

const COLUMNS = `id, org_id, agent_id, name, binding_type, config, guardrails, is_active, credential_source_type,
  credential_vault_id, credential_path, inline_vault_id, inline_path, inline_version, created_by, created_at, updated_at`;

/** The credential columns of a row: none, a vault reference, or an inline location. */
export type CredentialColumns = Pick<BindingRow, 'credential_source_type' | 'credential_vault_id' | 'credential_path' | 'inline_vault_id' | 'inline_path' | 'inline_version'>;

export const NO_CREDENTIAL: CredentialColumns = {
  credential_source_type: null, credential_vault_id: null, credential_path: null, inline_vault_id: null, inline_path: null, inline_version: null,
};

export const inlineOf = (b: CredentialColumns): InlineLocation | null =>
  (b.credential_source_type === 'inline' && b.inline_vault_id && b.inline_path && b.inline_version
    ? { vaultId: b.inline_vault_id, path: b.inline_path, version: b.inline_version } : null);

export type NewBinding = Omit<BindingRow, 'created_at' | 'updated_at' | 'is_active'>;

export async function insertBinding(tx: EntityManager, b: NewBinding): Promise<BindingRow> {
  const rows = await tx.execute<BindingRow[]>(
    `INSERT INTO execution_bindings (id, org_id, agent_id, name, binding_type, config, guardrails, credential_source_type,
       credential_vault_id, credential_path, inline_vault_id, inline_path, inline_version, created_by)
     VALUES (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    [b.id, b.org_id, b.agent_id, b.name, b.binding_type, JSON.stringify(b.config), JSON.stringify(b.guardrails), b.credential_source_type,
      b.credential_vault_id, b.credential_path, b.inline_vault_id, b.inline_path, b.inline_version, b.created_by]);
  return rows[0]!;
}

export function listBindings(em: EntityManager, orgId: string, agentId: string): Promise<BindingRow[]> {
  return em.execute<BindingRow[]>(`SELECT ${COLUMNS} FROM execution_bindings WHERE org_id = ? AND agent_id = ? ORDER BY created_at, id`, [orgId, agentId]);
}

/** One binding of the agent by id; `lock` takes the row for a change. */
export async function findBinding(em: EntityManager, orgId: string, agentId: string, id: string, lock = false): Promise<BindingRow | null> {
  if (!isUuid(id)) return null;
  const rows = await em.execute<BindingRow[]>(
    `SELECT ${COLUMNS} FROM execution_bindings WHERE org_id = ? AND agent_id = ? AND id = ?${lock ? ' FOR UPDATE' : ''}`, [orgId, agentId, id]);
  return rows[0] ?? null;
}

/** One binding of the agent by id, or else by name. */
export async function findBindingByIdOrName(em: EntityManager, orgId: string, agentId: string, ref: string): Promise<BindingRow | null> {
  const byId = await findBinding(em, orgId, agentId, ref);
  if (byId) return byId;
  const rows = await em.execute<BindingRow[]>(`SELECT ${COLUMNS} FROM execution_bindings WHERE org_id = ? AND agent_id = ? AND name = ?`, [orgId, agentId, ref]);
  return rows[0] ?? null;
}

export type BindingChanges = { config?: HttpConfig; guardrails?: BindingGuardrails; is_active?: boolean; credential?: CredentialColumns };

export async function updateBinding(tx: EntityManager, id: string, c: BindingChanges): Promise<BindingRow> {
  const sets: string[] = ['updated_at = now()'];
  const values: unknown[] = [];
  if (c.config !== undefined) { sets.push('config = ?::jsonb'); values.push(JSON.stringify(c.config)); }
  if (c.guardrails !== undefined) { sets.push('guardrails = ?::jsonb'); values.push(JSON.stringify(c.guardrails)); }
  if (c.is_active !== undefined) { sets.push('is_active = ?'); values.push(c.is_active); }
  if (c.credential !== undefined) {
    const k = c.credential;
    sets.push('credential_source_type = ?', 'credential_vault_id = ?', 'credential_path = ?', 'inline_vault_id = ?', 'inline_path = ?', 'inline_version = ?');
    values.push(k.credential_source_type, k.credential_vault_id, k.credential_path, k.inline_vault_id, k.inline_path, k.inline_version);
  }
  const rows = await tx.execute<BindingRow[]>(`UPDATE execution_bindings SET ${sets.join(', ')} WHERE id = ? RETURNING ${COLUMNS}`, [...values, id]);
  return rows[0]!;
}

export async function deleteBinding(tx: EntityManager, id: string): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>('DELETE FROM execution_bindings WHERE id = ? RETURNING id', [id]);
  return rows.length > 0;
}

// ---- execution events ----

export type ExecutionStatus = 'success' | 'failed' | 'denied';

export type ExecutionEventRow = {
  id: string; org_id: string; agent_id: string; binding_id: string; binding_name: string; intent_type: string; execution_mode: string;
  status: ExecutionStatus; request_summary: Record<string, unknown> | null; result_summary: Record<string, unknown> | null;
  error_message: string | null; duration_ms: number; cost_cents: number | null; redactions_applied: number; request_id: string | null;
  created_at: string | Date;
};

const EVENT_COLUMNS = `id, org_id, agent_id, binding_id, binding_name, intent_type, execution_mode, status, request_summary, result_summary,
  error_message, duration_ms, cost_cents, redactions_applied, request_id, created_at`;

export type NewExecutionEvent = Omit<ExecutionEventRow, 'created_at' | 'cost_cents' | 'execution_mode'>;

export async function insertExecutionEvent(em: EntityManager, e: NewExecutionEvent): Promise<void> {
  await em.execute(
    `INSERT INTO execution_events (id, org_id, agent_id, binding_id, binding_name, intent_type, status, request_summary, result_summary,
       error_message, duration_ms, redactions_applied, request_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?)`,
    [e.id, e.org_id, e.agent_id, e.binding_id, e.binding_name, e.intent_type, e.status,
      e.request_summary === null ? null : JSON.stringify(e.request_summary), e.result_summary === null ? null : JSON.stringify(e.result_summary),
      e.error_message, e.duration_ms, e.redactions_applied, e.request_id]);
}

/** The agent's events, newest first. */
export function listExecutionEvents(em: EntityManager, orgId: string, agentId: string, limit: number, offset: number): Promise<ExecutionEventRow[]> {
  return em.execute<ExecutionEventRow[]>(
    `SELECT ${EVENT_COLUMNS} FROM execution_events WHERE org_id = ? AND agent_id = ? ORDER BY created_at DESC, id LIMIT ? OFFSET ?`,
    [orgId, agentId, limit, offset]);
}

// ---- max_requests_per_minute ----

/**
 * Takes one request of the current calendar minute for `subject` unless `cap` are taken: one
 * conditional upsert, so concurrent requests on any replica never overshoot. False when full.
 */
export async function takeMinuteSlot(tx: EntityManager, subject: string, cap: number): Promise<boolean> {
  const rows = await tx.execute<{ count: number }[]>(
    `INSERT INTO execution_rate_windows (subject, window_start, count) VALUES (?, date_trunc('minute', now()), 1)
     ON CONFLICT (subject, window_start) DO UPDATE SET count = execution_rate_windows.count + 1
       WHERE execution_rate_windows.count < ?
     RETURNING count`, [subject, cap]);
  const taken = rows[0];
  // The first request of a minute clears the subject's earlier minutes.
  if (taken?.count === 1) await tx.execute("DELETE FROM execution_rate_windows WHERE subject = ? AND window_start < date_trunc('minute', now())", [subject]);
  return taken !== undefined && taken.count <= cap;
}

/** Seconds until the next calendar minute (Retry-After of a full window). */
export async function secondsToNextMinute(em: EntityManager): Promise<number> {
  const rows = await em.execute<{ s: number }[]>("SELECT ceil(extract(epoch FROM date_trunc('minute', now()) + interval '1 minute' - now()))::int AS s");
  return Math.max(1, rows[0]?.s ?? 60);
}
