// The platform_bootstraps table (migration 0056) and the idempotent writes of a bootstrap's steps:
// every resource is inserted under its planned id and a repeated insert does nothing, so a step
// re-run after a crash never makes a second vault, agent, policy or key.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import type { BootstrapPlan, PlannedAgent, PlannedPolicy } from './bootstrap-plan.ts';

export type BootstrapRow = Omit<Selectable<Database['platform_bootstraps']>, 'plan'> & { plan: BootstrapPlan };

/** A connection of this app, locked for the bootstrap's decisions, with its user's organization. */
export async function lockAppConnection(tx: EntityManager, appId: string, connectionId: string): Promise<{ id: string; status: string; user_id: string; org_id: string } | null> {
  return (await query(tx).selectFrom('platform_connections as c').innerJoin('users as u', 'u.id', 'c.user_id')
    .select(['c.id', 'c.status', 'c.user_id', 'u.org_id'])
    .where('c.id', '=', connectionId).where('c.platform_app_id', '=', appId).where('u.org_id', 'is not', null)
    .$narrowType<{ org_id: string }>().forUpdate('c').executeTakeFirst()) ?? null;
}

export async function bootstrapOf(em: EntityManager, connectionId: string): Promise<BootstrapRow | null> {
  return ((await query(em).selectFrom('platform_bootstraps').selectAll().where('connection_id', '=', connectionId).executeTakeFirst()) as BootstrapRow | undefined) ?? null;
}

export async function insertBootstrap(tx: EntityManager, b: { connectionId: string; appId: string; templateId: string; templateVersion: number; plan: BootstrapPlan; returnTo: string | null }): Promise<void> {
  await query(tx).insertInto('platform_bootstraps').values({
    connection_id: b.connectionId, platform_app_id: b.appId, template_id: b.templateId, template_version: b.templateVersion,
    plan: b.plan as unknown as Record<string, unknown>, return_to: b.returnTo,
  }).execute();
}

export async function vaultExists(em: EntityManager, vaultId: string): Promise<boolean> {
  return (await query(em).selectFrom('vaults').select('id').where('id', '=', vaultId).executeTakeFirst()) !== undefined;
}

/** The planned vault, whose key the KMS already holds; false when it exists already. */
export async function insertPlannedVault(tx: EntityManager, plan: BootstrapPlan, keyBackend: 'local' | 'pkcs11', keyRef: string): Promise<boolean> {
  const row = await query(tx).insertInto('vaults').values({
    id: plan.vault.id, org_id: plan.orgId, name: plan.vault.name, description: plan.vault.description, key_backend: keyBackend, key_ref: keyRef,
    created_by: plan.userId, created_by_type: 'user',
  }).onConflict((oc) => oc.column('id').doNothing()).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** The planned agent, without a key yet (the bootstrap's answer mints it); false when it exists already. */
export async function insertPlannedAgent(tx: EntityManager, plan: BootstrapPlan, a: PlannedAgent): Promise<boolean> {
  const row = await query(tx).insertInto('agents').values({
    id: a.id, org_id: plan.orgId, name: a.name, description: a.description, status: 'active', intents_api_enabled: a.intentsEnabled, created_by: plan.userId,
  }).onConflict((oc) => oc.column('id').doNothing()).returning('id').executeTakeFirst();
  return row !== undefined;
}

export async function insertPlannedPolicy(tx: EntityManager, plan: BootstrapPlan, p: PlannedPolicy): Promise<void> {
  await query(tx).insertInto('policies').values({
    id: p.id, org_id: plan.orgId, vault_id: plan.vault.id, secret_path_pattern: p.paths[0]!, principal_type: 'agent', principal_id: p.agentId,
    permissions: p.permissions, conditions: p.conditions, created_by: plan.userId, created_by_type: 'user',
  }).onConflict((oc) => oc.column('id').doNothing()).execute();
}

/** The app's reach into the vault it bootstrapped, until the user claims it: read and write on every path. */
export async function insertAppPolicy(tx: EntityManager, plan: BootstrapPlan, connectionId: string): Promise<void> {
  await query(tx).insertInto('policies').values({
    id: plan.appPolicyId, org_id: plan.orgId, vault_id: plan.vault.id, secret_path_pattern: '**', principal_type: 'platform', principal_id: connectionId,
    permissions: ['read', 'write'], created_by: plan.userId, created_by_type: 'user',
  }).onConflict((oc) => oc.column('id').doNothing()).execute();
}

export async function signingKeyExists(em: EntityManager, keyId: string): Promise<boolean> {
  return (await query(em).selectFrom('signing_keys').select('id').where('id', '=', keyId).executeTakeFirst()) !== undefined;
}

/** running → completed; false when it was completed already. */
export async function markBootstrapCompleted(tx: EntityManager, connectionId: string): Promise<boolean> {
  const row = await query(tx).updateTable('platform_bootstraps').set({ status: 'completed', completed_at: sql`now()` })
    .where('connection_id', '=', connectionId).where('status', '=', 'running').returning('connection_id').executeTakeFirst();
  return row !== undefined;
}

/** The completed bootstrap's one answer: true for the caller that may give it (the first). */
export async function markBootstrapAnswered(tx: EntityManager, connectionId: string): Promise<boolean> {
  const row = await query(tx).updateTable('platform_bootstraps').set({ answered_at: sql`now()` })
    .where('connection_id', '=', connectionId).where('status', '=', 'completed').where('answered_at', 'is', null).returning('connection_id').executeTakeFirst();
  return row !== undefined;
}

/** The primary agent's key, set once (an agent made by a bootstrap has none until its answer). */
export async function setBootstrapAgentKey(tx: EntityManager, agentId: string, key: { prefix: string; digest: string }): Promise<void> {
  await query(tx).updateTable('agents').set({ key_prefix: key.prefix, key_digest: key.digest }).where('id', '=', agentId).where('key_digest', 'is', null).execute();
}

/** A new claim token (the previous one dies with it). */
export async function setClaimToken(tx: EntityManager, connectionId: string, digest: string, expiresAt: Date, returnTo?: string | null): Promise<void> {
  await query(tx).updateTable('platform_bootstraps')
    .set({ claim_token_digest: digest, claim_expires_at: expiresAt, ...(returnTo !== undefined && { return_to: returnTo }) })
    .where('connection_id', '=', connectionId).execute();
}

/** Where a claim token leads: its bootstrap, the connection and the app. */
export type ClaimTarget = BootstrapRow & {
  connection_status: string; user_id: string; app_org_id: string; app_name: string; app_slug: string; app_logo_url: string | null; auth_mode: string;
};

export async function claimTargetByDigest(em: EntityManager, digest: string, lock = false): Promise<ClaimTarget | null> {
  let q = query(em).selectFrom('platform_bootstraps as b')
    .innerJoin('platform_connections as c', 'c.id', 'b.connection_id').innerJoin('platform_apps as a', 'a.id', 'b.platform_app_id')
    .selectAll('b').select(['c.status as connection_status', 'c.user_id', 'a.org_id as app_org_id', 'a.name as app_name', 'a.slug as app_slug', 'a.logo_url as app_logo_url', 'a.auth_mode'])
    .where('b.claim_token_digest', '=', digest);
  if (lock) q = q.forUpdate('c');
  return ((await q.executeTakeFirst()) as ClaimTarget | undefined) ?? null;
}

/**
 * The claim: the connection becomes the user's (claimed), the app's reach into the vault ends (its
 * bootstrap policy goes) and the vault is locked against every platform caller's value reads.
 */
export async function claimConnection(tx: EntityManager, target: ClaimTarget): Promise<void> {
  await query(tx).updateTable('platform_connections').set({ status: 'claimed', claimed_at: sql`now()` }).where('id', '=', target.connection_id).execute();
  await query(tx).deleteFrom('policies').where('id', '=', target.plan.appPolicyId).execute();
  await query(tx).updateTable('vaults').set({ platform_locked: true }).where('id', '=', target.plan.vault.id).execute();
}

/** What each of these connections provisioned: its bootstrap's vault and agents. */
export async function provisionedBy(em: EntityManager, connectionIds: string[]): Promise<Map<string, { vaultIds: string[]; agentIds: string[] }>> {
  if (connectionIds.length === 0) return new Map();
  const rows = await query(em).selectFrom('platform_bootstraps').select(['connection_id', 'plan'])
    .where('connection_id', 'in', connectionIds).where('status', '=', 'completed').execute();
  return new Map(rows.map((r) => {
    const plan = r.plan as unknown as BootstrapPlan;
    return [r.connection_id, { vaultIds: [plan.vault.id], agentIds: plan.agents.map((a) => a.id) }];
  }));
}

/** Bootstraps still running after `olderThanSeconds` (their workflow may never have started). */
export async function bootstrapsLeftRunning(em: EntityManager, olderThanSeconds: number): Promise<string[]> {
  const rows = await query(em).selectFrom('platform_bootstraps').select('connection_id').where('status', '=', 'running')
    .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`).limit(500).execute();
  return rows.map((r) => r.connection_id);
}

/** Public facts of the signing keys a bootstrap made. */
export async function signingKeysByIds(em: EntityManager, ids: string[]): Promise<{ chain: string; curve: string; public_key: string; address: string }[]> {
  if (ids.length === 0) return [];
  return query(em).selectFrom('signing_keys').select(['chain', 'curve', 'public_key', 'address']).where('id', 'in', ids).orderBy('chain').execute();
}
