// Sharing links (§2.7, §4.6, §5 item 9): every recipient type end to end, expiry, revocation and
// declining, who may share what with whom, input validation, and the creator's outbound list.
// The cap, passphrases, IP allowlists, new versions and audit/mail privacy: shares-open.test.ts.
//
// Budgets: creating shares is limited to 10 a minute per organization, so each describe signs up
// its own organization; opening is limited per client address (burst 60), so every open here goes
// out from its own loopback address in 127.10.0.0/16 (shares-open.test.ts uses 127.11.0.0/16).
import { randomUUID } from 'node:crypto';
import { call, closeDb, db, eventually, mailTo, signup, joinAsMember, type Account, type Res } from '../helpers/api.ts';
import { rnd, isProblem } from '../helpers/vault-fixtures.ts';
import { registerAgent, agentJwt, grantAgent, type Agent } from '../helpers/agent-fixtures.ts';
import { openShare, inFuture, DAY, createShare, shareOk, ownerWithSecret as ownerWithSecretOf } from '../helpers/share-fixtures.ts';

afterAll(closeDb);

let ipSeq = 0;
/** A loopback source address no other open in this run uses (its own per-address bucket). */
const nextIp = () => { ipSeq += 1; return `127.10.${Math.floor(ipSeq / 250)}.${(ipSeq % 250) + 1}`; };

async function listOf(token: string, which: 'inbound' | 'outbound'): Promise<any[]> {
  const r = await call('GET', `/v1/shares/${which}`, { token });
  expect(r.status).toBe(200);
  return r.body.shares;
}

const fieldsOf = (r: Res): string[] => (r.body.errors ?? []).map((e: { field: string }) => e.field);

/** A fresh organization with one secret. */
const ownerWithSecret = (tag: string, value = rnd('value')) => ownerWithSecretOf(tag, { path: 'team/db-password', type: 'password', value });

describe('each recipient type, end to end', () => {
  let owner: Account;
  let vaultId: string;
  let secretId: string;
  let path: string;
  let value: string;
  beforeAll(async () => ({ owner, vaultId, secretId, path, value } = await ownerWithSecret('share-rcpt')));

  const opened = (r: Res) => {
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toEqual(expect.objectContaining({ id: secretId, path, type: 'password', value }));
  };

  test('anyone_with_link: opens without any authentication', async () => {
    const s = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link' });
    expect(s.recipient_type).toBe('anyone_with_link');
    expect(s).not.toHaveProperty('recipient_email');
    const ip = nextIp();
    const r = await openShare(s.id, { ip });
    opened(r);
    expect(r.body.access_count).toBe(1);
    expect((await openShare(s.id, { ip, method: 'POST' })).body.access_count).toBe(2);
    // A link share is not addressed to anyone: nothing to accept.
    isProblem(await call('POST', `/v1/shares/${s.id}/accept`, { token: owner.token }), 400);
  });

  test('external_email: mailed link opens; inbound only for the verified matching account, which may accept', async () => {
    const rcpt = await signup('share-ext');
    const s = await shareOk(owner.token, secretId, { recipient_type: 'external_email', email: rcpt.email });
    expect(s).toEqual(expect.objectContaining({ recipient_type: 'external_email', recipient_email: rcpt.email }));
    const link = (await mailTo(rcpt.email, /Open it: GET (\S+)/))[1]!;
    expect(link).toBe(s.share_url);
    const mailed = new URL(link).pathname.split('/').pop()!;
    expect(mailed).toBe(s.id);
    const ip = nextIp();
    opened(await openShare(mailed, { ip }));

    // signup leaves the address unverified: the share is not theirs to see or accept yet.
    expect((await db().query('SELECT email_verified FROM users WHERE id = $1', [rcpt.userId])).rows[0].email_verified).toBe(false);
    expect((await listOf(rcpt.token, 'inbound')).map((x) => x.id)).not.toContain(s.id);
    isProblem(await call('POST', `/v1/shares/${s.id}/accept`, { token: rcpt.token }), 403);

    await db().query('UPDATE users SET email_verified = true WHERE id = $1', [rcpt.userId]);
    const before = (await listOf(rcpt.token, 'inbound')).find((x) => x.id === s.id);
    expect(before).toEqual(expect.objectContaining({ recipient_type: 'external_email', recipient_email: rcpt.email, secret_path: path, is_accepted: false }));
    expect((await call('POST', `/v1/shares/${s.id}/accept`, { token: rcpt.token })).status).toBe(204);
    expect((await listOf(rcpt.token, 'inbound')).find((x) => x.id === s.id)?.is_accepted).toBe(true);
    // Another verified account with a different address still does not see it.
    const other = await signup('share-ext-other');
    await db().query('UPDATE users SET email_verified = true WHERE id = $1', [other.userId]);
    expect((await listOf(other.token, 'inbound')).map((x) => x.id)).not.toContain(s.id);
    isProblem(await call('POST', `/v1/shares/${s.id}/accept`, { token: other.token }), 403);
    // The link stays the credential.
    opened(await openShare(mailed, { ip }));
  });

  test('user: needs the recipient\'s bearer and an accept', async () => {
    const member = await joinAsMember(owner, 'share-user');
    const s = await shareOk(owner.token, secretId, { recipient_type: 'user', recipient_id: member.userId });
    expect(s.recipient_type).toBe('user');
    const ip = nextIp();
    const anon = await openShare(s.id, { ip });
    isProblem(anon, 401);
    expect(anon.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(anon.text).not.toContain(value);
    isProblem(await openShare(s.id, { ip, token: owner.token }), 403); // another user (here: its creator)
    const early = await openShare(s.id, { ip, token: member.token });
    isProblem(early, 403);
    expect(early.body.detail).toMatch(/accept/i);
    expect(early.text).not.toContain(value);
    expect((await listOf(member.token, 'inbound')).find((x) => x.id === s.id)?.is_accepted).toBe(false);
    // Only the recipient can accept.
    isProblem(await call('POST', `/v1/shares/${s.id}/accept`, { token: owner.token }), 403);
    expect((await call('POST', `/v1/shares/${s.id}/accept`, { token: member.token })).status).toBe(204);
    opened(await openShare(s.id, { ip, token: member.token }));
    isProblem(await openShare(s.id, { ip, token: owner.token }), 403);
    const item = (await listOf(member.token, 'inbound')).find((x) => x.id === s.id);
    expect(item).toEqual(expect.objectContaining({ recipient_type: 'user', secret_path: path, is_accepted: true, access_count: 1 }));
  });

  test('agent: accepted by the agent, opened with its JWT', async () => {
    const agent = await registerAgent(owner, { name: 'share-recipient-bot' });
    const jwt = await agentJwt(agent);
    const s = await shareOk(owner.token, secretId, { recipient_type: 'agent', recipient_id: agent.id });
    expect(s.recipient_type).toBe('agent');
    const ip = nextIp();
    isProblem(await openShare(s.id, { ip }), 401);
    isProblem(await openShare(s.id, { ip, token: owner.token }), 403);
    isProblem(await openShare(s.id, { ip, token: jwt }), 403);
    expect((await listOf(jwt, 'inbound')).find((x) => x.id === s.id)?.is_accepted).toBe(false);
    expect((await call('POST', `/v1/shares/${s.id}/accept`, { token: jwt })).status).toBe(204);
    opened(await openShare(s.id, { ip, token: jwt }));
    expect((await listOf(jwt, 'inbound')).find((x) => x.id === s.id)?.is_accepted).toBe(true);
  });

  test('creator: an agent shares with the human who created it, who accepts and opens', async () => {
    const agent = await registerAgent(owner, { name: 'share-creator-bot' });
    await grantAgent(owner, vaultId, agent.id, 'team/*', ['read']);
    const jwt = await agentJwt(agent);
    const s = await shareOk(jwt, secretId, { recipient_type: 'creator' });
    expect(s.recipient_type).toBe('creator');
    expect((await listOf(jwt, 'outbound')).map((x) => x.id)).toContain(s.id);
    expect((await listOf(owner.token, 'inbound')).find((x) => x.id === s.id)).toEqual(expect.objectContaining({ recipient_type: 'creator', is_accepted: false }));
    const ip = nextIp();
    isProblem(await openShare(s.id, { ip }), 401);
    isProblem(await openShare(s.id, { ip, token: jwt }), 403); // the agent itself is not the recipient
    isProblem(await openShare(s.id, { ip, token: owner.token }), 403);
    expect((await call('POST', `/v1/shares/${s.id}/accept`, { token: owner.token })).status).toBe(204);
    opened(await openShare(s.id, { ip, token: owner.token }));
    expect((await listOf(owner.token, 'inbound')).find((x) => x.id === s.id)?.is_accepted).toBe(true);
  });
});

test('expiry: a share that expires in 2 s answers 410 once it has, and lists as expired', async () => {
  const { owner, secretId, value } = await ownerWithSecret('share-expiry');
  const s = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link', expires_at: inFuture(2_000) });
  const ip = nextIp();
  const first = await openShare(s.id, { ip });
  expect(first.status).toBe(200);
  expect(first.body.value).toBe(value);
  let opens = 1;
  const gone = await eventually('the share expiring', async () => {
    const r = await openShare(s.id, { ip });
    if (r.status !== 200) return r;
    opens += 1;
    return undefined;
  }, 15_000);
  isProblem(gone, 410);
  expect(gone.body.detail).toMatch(/expired/i);
  expect(gone.text).not.toContain(value);
  expect(Date.now()).toBeGreaterThanOrEqual(new Date(s.expires_at).getTime());
  const item = (await listOf(owner.token, 'outbound')).find((x) => x.id === s.id);
  expect(item).toEqual(expect.objectContaining({ is_expired: true, access_count: opens }));
});

describe('revoking and declining', () => {
  let owner: Account;
  let member: Account;
  let secretId: string;
  beforeAll(async () => {
    ({ owner, secretId } = await ownerWithSecret('share-revoke'));
    member = await joinAsMember(owner, 'share-revoker');
  });

  test('DELETE /v1/share/{id}: creator only; then 404 on open and gone from the outbound list', async () => {
    const s = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link' });
    const ip = nextIp();
    expect((await openShare(s.id, { ip })).status).toBe(200);
    const refused = await call('DELETE', `/v1/share/${s.id}`, { token: member.token });
    isProblem(refused, 403);
    expect(refused.body.detail).toMatch(/creator/i);
    isProblem(await call('DELETE', `/v1/shares/${s.id}`, { token: member.token }), 403);
    expect((await openShare(s.id, { ip })).status).toBe(200);

    expect((await call('DELETE', `/v1/share/${s.id}`, { token: owner.token })).status).toBe(204);
    isProblem(await openShare(s.id, { ip }), 404);
    isProblem(await openShare(s.id, { ip, method: 'POST' }), 404);
    isProblem(await call('DELETE', `/v1/share/${s.id}`, { token: owner.token }), 404);
    expect((await listOf(owner.token, 'outbound')).map((x) => x.id)).not.toContain(s.id);
    const events = await db().query(
      "SELECT payload FROM event_outbox WHERE org_id = $1 AND event_type = 'share.revoked' AND payload->>'share_prefix' = $2",
      [owner.orgId, s.id.slice(0, 8)]);
    expect(events.rows).toHaveLength(1);
    expect(JSON.stringify(events.rows[0].payload)).not.toContain(s.id);
  });

  test('DELETE /v1/shares/{id} revokes the same way', async () => {
    const s = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link' });
    const ip = nextIp();
    expect((await openShare(s.id, { ip })).status).toBe(200);
    expect((await call('DELETE', `/v1/shares/${s.id}`, { token: owner.token })).status).toBe(204);
    isProblem(await openShare(s.id, { ip }), 404);
    isProblem(await call('DELETE', `/v1/shares/${s.id}`, { token: owner.token }), 404);
  });

  test('a declined user share no longer opens (404) and leaves the inbound list', async () => {
    const s = await shareOk(owner.token, secretId, { recipient_type: 'user', recipient_id: member.userId });
    expect((await listOf(member.token, 'inbound')).map((x) => x.id)).toContain(s.id);
    expect((await call('POST', `/v1/shares/${s.id}/decline`, { token: member.token })).status).toBe(204);
    isProblem(await openShare(s.id, { ip: nextIp(), token: member.token }), 404);
    expect((await listOf(member.token, 'inbound')).map((x) => x.id)).not.toContain(s.id);
    isProblem(await call('POST', `/v1/shares/${s.id}/accept`, { token: member.token }), 409);
  });

  test('an unknown or malformed link is 404', async () => {
    const ip = nextIp();
    isProblem(await openShare(randomUUID(), { ip }), 404);
    isProblem(await openShare('not-a-share', { ip }), 404);
  });
});

test('an agent may share only with its own human: external_email and anyone_with_link are 403', async () => {
  const { owner, vaultId, secretId, value } = await ownerWithSecret('share-agent-limits');
  const agent: Agent = await registerAgent(owner, { name: 'limited-bot' });
  await grantAgent(owner, vaultId, agent.id, 'team/*', ['read']);
  const jwt = await agentJwt(agent);
  const ext = await createShare(jwt, secretId, { recipient_type: 'external_email', email: 'someone@example.org' });
  isProblem(ext, 403);
  expect(ext.body.detail).toMatch(/external e-?mail/i);
  expect(ext.body.detail).toMatch(/creator/);
  const link = await createShare(jwt, secretId, { recipient_type: 'anyone_with_link' });
  isProblem(link, 403);
  expect(link.body.detail).toMatch(/creator/);
  for (const r of [ext, link]) expect(r.text).not.toContain(value);
  expect(await listOf(jwt, 'outbound')).toEqual([]);
  expect((await db().query('SELECT count(*)::int AS n FROM shares WHERE org_id = $1', [owner.orgId])).rows[0].n).toBe(0);
});

test('a recipient in another organization, or none at all, is the same 403', async () => {
  const { owner, secretId } = await ownerWithSecret('share-org-a');
  const other = await signup('share-org-b');
  const otherAgent = await registerAgent(other, { name: 'foreign-bot' });
  const attempts = [
    { recipient_type: 'user', recipient_id: other.userId },
    { recipient_type: 'agent', recipient_id: otherAgent.id },
    { recipient_type: 'user', recipient_id: randomUUID() },
    { recipient_type: 'agent', recipient_id: randomUUID() },
  ];
  const details = new Set<string>();
  for (const body of attempts) {
    const r = await createShare(owner.token, secretId, body);
    isProblem(r, 403);
    details.add(r.body.detail);
  }
  expect(details.size).toBe(1); // no enumeration of other organizations' users and agents
  expect(await listOf(owner.token, 'outbound')).toEqual([]);
  expect(await listOf(other.token, 'inbound')).toEqual([]);
});

test('bad input is a 400 naming the field, and creates nothing', async () => {
  const { owner, secretId } = await ownerWithSecret('share-invalid');
  const link = { recipient_type: 'anyone_with_link' };
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['expires_at in the past', { ...link, expires_at: new Date(Date.now() - 60_000).toISOString() }, 'expires_at'],
    ['expires_at beyond 30 days', { ...link, expires_at: inFuture(31 * DAY) }, 'expires_at'],
    ['expires_at not a timestamp', { ...link, expires_at: 'tomorrow' }, 'expires_at'],
    ['bad CIDR', { ...link, ip_allowlist: ['10.0.0.0/33'] }, 'ip_allowlist.0'],
    ['not an address', { ...link, ip_allowlist: ['127.0.0.1/32', 'not-an-ip'] }, 'ip_allowlist.1'],
    ['short passphrase', { ...link, passphrase: 'short' }, 'passphrase'],
    ['user without recipient_id', { recipient_type: 'user' }, 'recipient_id'],
    ['write permission', { ...link, permissions: ['write'] }, 'permissions.0'],
    ['creator from a person', { recipient_type: 'creator' }, 'recipient_type'],
  ];
  for (const [what, body, field] of cases) {
    const r = await createShare(owner.token, secretId, body);
    try {
      isProblem(r, 400);
      expect(fieldsOf(r)).toContain(field);
      expect(r.body.detail).toContain(field);
    } catch (e) {
      throw new Error(`${what}: ${(e as Error).message}\n${r.text}`);
    }
  }
  const missing = await call('POST', `/v1/secrets/${secretId}/share`, { token: owner.token, body: link });
  isProblem(missing, 400);
  expect(fieldsOf(missing)).toContain('expires_at');
  expect(await listOf(owner.token, 'outbound')).toEqual([]);
  expect((await db().query('SELECT count(*)::int AS n FROM shares WHERE org_id = $1', [owner.orgId])).rows[0].n).toBe(0);
});

test('the creator must be able to read the secret, at creation and at every open', async () => {
  const { owner, vaultId, secretId, path, value } = await ownerWithSecret('share-must-read');
  const member = await joinAsMember(owner, 'share-reader');
  const refused = await createShare(member.token, secretId, { recipient_type: 'anyone_with_link' });
  isProblem(refused, 403);
  expect(refused.text).not.toContain(value);

  const grant = await call('POST', `/v1/vaults/${vaultId}/policies`, {
    token: owner.token, body: { secret_path_pattern: path, principal_type: 'user', principal_id: member.userId, permissions: ['read'] },
  });
  expect(grant.status).toBe(201);
  const s = await shareOk(member.token, secretId, { recipient_type: 'anyone_with_link' });
  const ip = nextIp();
  const ok = await openShare(s.id, { ip });
  expect(ok.status).toBe(200);
  expect(ok.body.value).toBe(value);

  expect((await call('DELETE', `/v1/vaults/${vaultId}/policies/${grant.body.id}`, { token: owner.token })).status).toBe(204);
  const gone = await openShare(s.id, { ip });
  isProblem(gone, 410);
  expect(gone.text).not.toContain(value);
  isProblem(await createShare(member.token, secretId, { recipient_type: 'anyone_with_link' }), 403);
});

test('the outbound list shows access_count and is_expired; share_url ends with /v1/share/<id>', async () => {
  const { owner, secretId, path } = await ownerWithSecret('share-outbound');
  const expiresAt = inFuture(7 * DAY);
  const r = await createShare(owner.token, secretId, { recipient_type: 'anyone_with_link', expires_at: expiresAt, max_access_count: 3 });
  expect(r.status).toBe(201);
  const s = r.body;
  expect(s).toEqual(expect.objectContaining({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), recipient_type: 'anyone_with_link', max_access_count: 3 }));
  expect(new Date(s.expires_at).getTime()).toBe(new Date(expiresAt).getTime());
  expect(new URL(s.share_url).pathname).toBe(`/v1/share/${s.id}`);
  expect(s.share_url.endsWith(`/v1/share/${s.id}`)).toBe(true);

  const fresh = (await listOf(owner.token, 'outbound')).find((x) => x.id === s.id);
  expect(fresh).toEqual(expect.objectContaining({ secret_path: path, access_count: 0, max_access_count: 3, is_expired: false, is_accepted: false }));
  const ip = nextIp();
  expect((await openShare(s.id, { ip })).body.access_count).toBe(1);
  const second = await openShare(s.id, { ip });
  expect(second.body).toEqual(expect.objectContaining({ access_count: 2, max_access_count: 3 }));
  const item = (await listOf(owner.token, 'outbound')).find((x) => x.id === s.id);
  expect(item).toEqual(expect.objectContaining({
    id: s.id, secret_path: path, recipient_type: 'anyone_with_link', access_count: 2, max_access_count: 3, is_expired: false,
  }));
  expect(new Date(item.created_at).getTime()).toBeLessThanOrEqual(Date.now());
});
