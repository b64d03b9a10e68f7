// Bootstrap, claim and grants of the platform API (issue 35 §3), over real HTTP against the shared
// stack's Temporal worker. An app bootstraps a connected user from a template (one vault, one
// agent with a working ocv_ key, its policy, an Ethereum key), writes and reads in that vault
// through X-Platform-Connection until the user claims it; the claim link previews, is reissued
// (the old one dies), is redeemed once (409 after, 410 when expired); after the claim the vault is
// platform_locked. Grants of the user's other vault are enforced by the policy decision: a value
// read while granted, 403 once revoked or expired, and nothing once the user disconnects.
import { call, closeDb, db, signup, type Account } from '../helpers/api.ts';
import { waitFor } from '../helpers/stack.ts';

let owner: Account;
let alice: Account;
let appId: string;
let appKey: string;
let slug: string;
let connectionId: string;

const asApp = (method: string, path: string, body?: unknown, connection: string | null = connectionId) =>
  call(method, path, { token: appKey, body, headers: connection ? { 'x-platform-connection': connection } : {} });
const events = async (type: string) => (await db().query(
  "SELECT payload FROM event_outbox WHERE event_type = $1 AND payload->>'platform_app_id' = $2 ORDER BY seq", [type, appId])).rows.map((r) => r.payload);

beforeAll(async () => {
  owner = await signup('platform-boot-owner');
  alice = await signup('platform-boot-alice');
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = ANY($1)", [[owner.orgId, alice.orgId]]);
  slug = `boot-${Date.now().toString(36)}`;
  const app = await call('POST', '/v1/platform/apps', {
    token: owner.token, body: { name: 'Boot App', slug, redirect_uris: ['https://boot.app.test/done'] },
  });
  expect(app.status).toBe(201);
  appId = app.body.id;
  appKey = app.body.api_key;
  const t = await call('POST', `/v1/platform/apps/${appId}/templates`, {
    token: appKey, body: {
      name: 'starter', spec: {
        vault: { name: 'app-vault' }, agents: [{ name: 'primary', description: 'the app agent' }],
        policies: [{ principal_ref: 'agents.primary', paths: ['app/**'], permissions: ['read'] }], signing_keys: [{ chain: 'ethereum' }],
      },
    },
  });
  expect(t.status).toBe(201);
  // Alice has an account already: she consents, and the app bootstraps her connection.
  const c = await call('POST', '/v1/platform/connected-apps', { token: alice.token, body: { app_slug: slug } });
  expect(c.status).toBe(201);
  connectionId = c.body.connection_id;
});

afterAll(async () => { await closeDb(); });

let vaultId: string;
let agentId: string;
let claimToken: string;

test('bootstrap: one answer with the agent key and a claim link; a return_to outside redirect_uris is refused first', async () => {
  const bad = await asApp('POST', `/v1/platform/connections/${connectionId}/bootstrap`, { return_to: 'https://evil.test/done' }, null);
  expect(bad.status).toBe(400);
  expect(await db().query('SELECT 1 FROM platform_bootstraps WHERE connection_id = $1', [connectionId])).toMatchObject({ rowCount: 0 });
  const asUser = await call('POST', `/v1/platform/connections/${connectionId}/bootstrap`, { token: alice.token, body: {} });
  expect(asUser.status).toBe(403);

  const r = await asApp('POST', `/v1/platform/connections/${connectionId}/bootstrap`, { return_to: 'https://boot.app.test/done?x=1' }, null);
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ connection_id: connectionId, expires_in: 600 });
  expect(r.body.claim_token).toMatch(/^ct_/);
  expect(r.body.claim_url).toContain(`/connect/${slug}/claim/${r.body.claim_token}`);
  const s = r.body.summary;
  expect(s.agent_api_key).toMatch(/^ocv_/);
  expect(s.signing_key_chains).toEqual(['ethereum']);
  expect(s.agent_evm_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  expect(s.policy_ids).toHaveLength(1);
  vaultId = s.vault_id;
  agentId = s.agent_id;
  claimToken = r.body.claim_token;
  // Exactly what the template says, in Alice's organization.
  const counts = (await db().query(
    "SELECT (SELECT count(*) FROM vaults WHERE org_id = $1 AND kind = 'standard')::int AS vaults, (SELECT count(*) FROM agents WHERE org_id = $1)::int AS agents",
    [alice.orgId])).rows[0];
  expect(counts).toEqual({ vaults: 1, agents: 1 });
  // The agent's key works; its policy reaches app/** for read.
  const jwt = await call('POST', '/v1/auth/agent-token', { body: { api_key: s.agent_api_key, agent_id: agentId } });
  expect(jwt.status).toBe(200);
  // Answered once.
  const again = await asApp('POST', `/v1/platform/connections/${connectionId}/bootstrap`, {}, null);
  expect(again.status).toBe(409);
  expect(await events('platform.bootstrap.completed')).toHaveLength(1);

  // Until the claim, the app reaches the vault it made through its connection.
  const put = await asApp('PUT', `/v1/vaults/${vaultId}/secrets/app/db`, { value: 'pg://app', type: 'password' });
  expect(put.status).toBe(201);
  const read = await asApp('GET', `/v1/vaults/${vaultId}/secrets/app/db`);
  expect(read.status).toBe(200);
  expect(read.body.value).toBe('pg://app');
  const agentRead = await call('GET', `/v1/vaults/${vaultId}/secrets/app/db`, { token: jwt.body.access_token });
  expect(agentRead.status).toBe(200);
  // Never without naming the connection, never on user routes, never another app's connection.
  expect((await asApp('GET', `/v1/vaults/${vaultId}/secrets/app/db`, undefined, null)).status).toBe(403);
  expect((await asApp('GET', '/v1/vaults')).status).toBe(403);
  expect((await asApp('GET', `/v1/vaults/${vaultId}/secrets/app/db`, undefined, '00000000-0000-4000-8000-000000000000')).status).toBe(403);
}, 60_000);

test('claim: preview, reissue (the old link dies), redeem once; afterwards the app reads no value of the vault', async () => {
  const preview = await call('GET', `/v1/platform/claim/${claimToken}`);
  expect(preview.status).toBe(200);
  expect(preview.body).toMatchObject({
    app_slug: slug, vault_ids: [vaultId], agent_ids: [agentId], policy_count: 1, status: 'connected', already_claimed: false, expired: false,
    return_to: 'https://boot.app.test/done?x=1',
  });
  expect((await call('GET', '/v1/platform/claim/ct_nosuchtokennosuchtokennosuchtoken')).status).toBe(404);

  const re = await asApp('POST', `/v1/platform/connections/${connectionId}/reissue-claim`, {}, null);
  expect(re.status).toBe(200);
  expect(re.body.claim_token).not.toBe(claimToken);
  expect((await call('GET', `/v1/platform/claim/${claimToken}`)).status).toBe(404);
  claimToken = re.body.claim_token;

  // An expired link is 410 (and reissue gives a fresh one).
  await db().query("UPDATE platform_bootstraps SET claim_expires_at = now() - interval '1 second' WHERE connection_id = $1", [connectionId]);
  expect((await call('GET', `/v1/platform/claim/${claimToken}`)).body.expired).toBe(true);
  expect((await call('POST', `/v1/platform/claim/${claimToken}`)).status).toBe(410);
  claimToken = (await asApp('POST', `/v1/platform/connections/${connectionId}/reissue-claim`, {}, null)).body.claim_token;

  const redeem = await call('POST', `/v1/platform/claim/${claimToken}`);
  expect(redeem.status).toBe(200);
  expect(redeem.body).toMatchObject({ status: 'claimed', connection_id: connectionId, vault_ids: [vaultId], agent_ids: [agentId], return_to: 'https://boot.app.test/done?x=1' });
  expect((await call('POST', `/v1/platform/claim/${claimToken}`)).status).toBe(409);
  expect((await asApp('POST', `/v1/platform/connections/${connectionId}/reissue-claim`, {}, null)).status).toBe(409);
  expect(await events('platform.user.claimed')).toHaveLength(1);

  const users = await call('GET', `/v1platform/apps/${appId}/users`.replace('v1platform', 'v1/platform'), { token: appKey });
  expect(users.body.find((u: { connection_id: string }) => u.connection_id === connectionId)).toMatchObject({ status: 'claimed', vault_ids: [vaultId], agent_ids: [agentId] });

  // The app's own reach ended with the claim, and the vault is locked against platform reads.
  expect((await asApp('GET', `/v1/vaults/${vaultId}/secrets/app/db`)).status).toBe(403);
  const g = await call('POST', `/v1/platform/connections/${connectionId}/grant`, { token: alice.token, body: { vault_ids: [vaultId], permissions: ['read'] } });
  expect(g.status).toBe(201);
  const locked = await asApp('GET', `/v1/vaults/${vaultId}/secrets/app/db`);
  expect(locked.status).toBe(403);
  expect(locked.body.detail).toContain('platform_locked');
  // Metadata stays visible to a grant; the user still reads her value.
  expect((await asApp('GET', `/v1/vaults/${vaultId}/secrets`)).status).toBe(200);
  expect((await call('GET', `/v1/vaults/${vaultId}/secrets/app/db`, { token: alice.token })).body.value).toBe('pg://app');
}, 60_000);

test('grants: enforced by the policy decision, revoked at once, expiring, and gone with the connection', async () => {
  const v = await call('POST', '/v1/vaults', { token: alice.token, body: { name: 'personal' } });
  expect(v.status).toBe(201);
  const personal = v.body.id as string;
  expect((await call('PUT', `/v1/vaults/${personal}/secrets/shared/token`, { token: alice.token, body: { value: 's3cret', type: 'api_key' } })).status).toBe(201);
  expect((await call('PUT', `/v1/vaults/${personal}/secrets/private/key`, { token: alice.token, body: { value: 'mine', type: 'api_key' } })).status).toBe(201);
  expect((await asApp('GET', `/v1/vaults/${personal}/secrets/shared/token`)).status).toBe(403);

  // Bad grants change nothing.
  for (const body of [{ vault_ids: [] }, { vault_ids: [personal], permissions: ['admin'] }, { vault_ids: [personal], allowed_paths: ['a/***'] },
    { vault_ids: [personal], expires_at: '2000-01-01T00:00:00Z' }, { vault_ids: [personal], agent_ids: [agentId] }]) {
    const r = await call('POST', `/v1/platform/connections/${connectionId}/grant`, { token: alice.token, body });
    expect(r.status).toBe(400);
  }
  expect((await call('POST', `/v1/platform/connections/${connectionId}/grant`, { token: owner.token, body: { vault_ids: [personal] } })).status).toBe(404);
  expect((await call('POST', `/v1/platform/connections/${connectionId}/grant`, { token: appKey, body: { vault_ids: [personal] } })).status).toBe(403);

  const g = await call('POST', `/v1/platform/connections/${connectionId}/grant`, {
    token: alice.token, body: { vault_ids: [personal], allowed_paths: ['shared/**'], permissions: ['read'] },
  });
  expect(g.status).toBe(201);
  expect(g.body.grants).toHaveLength(1);
  const grantId = g.body.grants[0].id as string;
  expect((await asApp('GET', `/v1/vaults/${personal}/secrets/shared/token`)).body.value).toBe('s3cret');
  expect((await asApp('GET', `/v1/vaults/${personal}/secrets/private/key`)).status).toBe(403);
  expect((await asApp('PUT', `/v1/vaults/${personal}/secrets/shared/token`, { value: 'x', type: 'api_key' })).status).toBe(403);
  const list = await call('GET', `/v1/platform/connections/${connectionId}/grants`, { token: alice.token });
  expect(list.body.grants.map((x: { id: string }) => x.id)).toContain(grantId);

  expect((await call('DELETE', `/v1/platform/connections/${connectionId}/grants/${grantId}`, { token: alice.token })).status).toBe(204);
  expect((await asApp('GET', `/v1/vaults/${personal}/secrets/shared/token`)).status).toBe(403);
  expect((await call('DELETE', `/v1/platform/connections/${connectionId}/grants/${grantId}`, { token: alice.token })).status).toBe(404);

  // A grant that expires: allowed until its expiry, refused after (no cached read outlives it).
  const soon = new Date(Date.now() + 3000).toISOString();
  expect((await call('POST', `/v1/platform/connections/${connectionId}/grant`, { token: alice.token, body: { vault_ids: [personal], expires_at: soon } })).status).toBe(201);
  expect((await asApp('GET', `/v1/vaults/${personal}/secrets/shared/token`)).status).toBe(200);
  await waitFor('the grant to expire', 20_000, async () => ((await asApp('GET', `/v1/vaults/${personal}/secrets/shared/token`)).status === 200 ? undefined : true));
  expect((await asApp('GET', `/v1/vaults/${personal}/secrets/shared/token`)).status).toBe(403);

  // Disconnecting revokes every grant and the connection itself.
  expect((await call('POST', `/v1/platform/connections/${connectionId}/grant`, { token: alice.token, body: { vault_ids: [personal] } })).status).toBe(201);
  expect((await asApp('GET', `/v1/vaults/${personal}/secrets/shared/token`)).status).toBe(200);
  expect((await call('DELETE', `/v1/platform/connected-apps/${connectionId}`, { token: alice.token })).status).toBe(204);
  expect((await asApp('GET', `/v1/vaults/${personal}/secrets/shared/token`)).status).toBe(403);
  expect((await db().query("SELECT count(*)::int AS n FROM policies WHERE principal_type = 'platform' AND principal_id = $1", [connectionId])).rows[0].n).toBe(0);
  expect((await events('platform.grant.created')).length).toBeGreaterThanOrEqual(4);
  expect((await events('platform.grant.revoked')).length).toBeGreaterThanOrEqual(2);

  // The app's counts: its one connection (now disconnected), one bootstrap, the grants issued.
  const stats = await call('GET', `/v1/platform/apps/${appId}/stats`, { token: appKey });
  expect(stats.status).toBe(200);
  expect(stats.body).toEqual({ total_connections: 1, active_connections: 0, claimed_connections: 0, total_bootstraps: 1, total_grants: 4 });
  expect((await call('GET', `/v1/platform/apps/${appId}/stats`, { token: alice.token })).status).toBe(404);
}, 60_000);

test("billing_model user_pays: a bootstrap counts against the user's plan, refused before anything is made", async () => {
  const bob = await signup('platform-boot-bob');
  for (const name of ['one', 'two', 'three']) expect((await call('POST', '/v1/vaults', { token: bob.token, body: { name } })).status).toBe(201);
  const c = await call('POST', '/v1/platform/connected-apps', { token: bob.token, body: { app_slug: slug } });
  expect(c.status).toBe(201);
  const bobConnection = c.body.connection_id as string;
  expect((await call('PATCH', `/v1/platform/apps/${appId}`, { token: owner.token, body: { billing_model: 'user_pays' } })).status).toBe(200);
  const refused = await asApp('POST', `/v1/platform/connections/${bobConnection}/bootstrap`, {}, null);
  expect(refused.status).toBe(403);
  expect(refused.body.type).toBe('resource_limit_exceeded');
  expect((await db().query('SELECT 1 FROM platform_bootstraps WHERE connection_id = $1', [bobConnection])).rowCount).toBe(0);
  // The app's organization pays: Bob's plan is not asked.
  expect((await call('PATCH', `/v1/platform/apps/${appId}`, { token: owner.token, body: { billing_model: 'platform_pays' } })).status).toBe(200);
  expect((await asApp('POST', `/v1/platform/connections/${bobConnection}/bootstrap`, {}, null)).status).toBe(201);
}, 60_000);
