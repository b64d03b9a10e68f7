// Organization members and invitations (§4.12) over HTTP, against the real stack: invitation
// mails go through the worker and SMTP; roles owner/admin/member; the last owner stays an owner.
import { randomUUID } from 'node:crypto';
import { call, closeDb, login, mailTo, signup, uniqueEmail, PASSWORD, type Account, type Res } from '../helpers/api.ts';

afterAll(closeDb);

const isProblem = (r: Res, status: number) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(expect.objectContaining({ type: expect.any(String), title: expect.any(String), status, detail: expect.any(String) }));
};

/** Sends an invitation and returns the token the invitee received by mail. */
async function invite(inviter: Account, role: 'member' | 'admin', email = uniqueEmail(`inv-${role}`)): Promise<{ email: string; token: string }> {
  const r = await call('POST', '/v1/org/invite', { token: inviter.token, body: { email, role } });
  expect(r.status).toBe(200);
  const m = await mailTo(email, /Invitation token: (inv_\S+)/);
  return { email, token: m[1]! };
}

/** A new account that joined `inviter`'s organization with `role` through an invitation. */
async function join(inviter: Account, role: 'member' | 'admin'): Promise<Account> {
  const { email, token } = await invite(inviter, role);
  const r = await call('POST', '/v1/org/invitations/accept', { body: { token, password: PASSWORD } });
  expect(r.status).toBe(200);
  const me = await call('GET', '/v1/auth/me', { token: r.body.access_token });
  expect(me.status).toBe(200);
  return { email, password: PASSWORD, token: r.body.access_token, userId: me.body.id, orgId: me.body.org_id };
}

async function roleIn(owner: Account, userId: string): Promise<string | undefined> {
  const r = await call('GET', '/v1/org/members', { token: owner.token });
  expect(r.status).toBe(200);
  return (r.body.members as { user_id: string; role: string }[]).find((m) => m.user_id === userId)?.role;
}

describe('GET /v1/org/members', () => {
  test('lists the owner with the documented fields', async () => {
    const owner = await signup('org-list');
    const r = await call('GET', '/v1/org/members', { token: owner.token });
    expect(r.status).toBe(200);
    // Issue 8 §5: a missing display_name is omitted, not null (the reference types it as a string).
    expect(r.body).toEqual({
      members: [{
        id: owner.userId, user_id: owner.userId, email: owner.email, role: 'owner',
        auth_method: 'password', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }],
    });
  });

  test('without a token is a 401 problem', async () => {
    isProblem(await call('GET', '/v1/org/members'), 401);
  });
});

describe('invitations', () => {
  test('an invitee receives a mail, accepts it and joins the inviter\'s organization', async () => {
    const owner = await signup('org-inviter');
    const email = uniqueEmail('invitee');
    const r = await call('POST', '/v1/org/invite', { token: owner.token, body: { email, role: 'admin' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: expect.any(String), email });

    const token = (await mailTo(email, /Invitation token: (inv_\S+)/))[1]!;
    const accepted = await call('POST', '/v1/org/invitations/accept', { body: { token, password: PASSWORD } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual(expect.objectContaining({ access_token: expect.any(String), token_type: 'Bearer', expires_in: expect.any(Number), email, role: 'admin' }));

    const me = await call('GET', '/v1/auth/me', { token: accepted.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.org_id).toBe(owner.orgId);
    expect(me.body.role).toBe('admin');
    expect(me.body.email).toBe(email);

    const members = await call('GET', '/v1/org/members', { token: owner.token });
    expect(members.body.members).toEqual(expect.arrayContaining([
      expect.objectContaining({ user_id: owner.userId, role: 'owner' }),
      expect.objectContaining({ user_id: me.body.id, email, role: 'admin' }),
    ]));
    expect(members.body.members).toHaveLength(2);

    // The new account can log in with the password it chose.
    const again = await call('GET', '/v1/auth/me', { token: await login(email, PASSWORD) });
    expect(again.body.org_id).toBe(owner.orgId);
  });

  test('the role defaults to member', async () => {
    const owner = await signup('org-default-role');
    const email = uniqueEmail('invitee-default');
    expect((await call('POST', '/v1/org/invite', { token: owner.token, body: { email } })).status).toBe(200);
    const token = (await mailTo(email, /Invitation token: (inv_\S+)/))[1]!;
    const accepted = await call('POST', '/v1/org/invitations/accept', { body: { token, password: PASSWORD } });
    expect(accepted.status).toBe(200);
    const me = await call('GET', '/v1/auth/me', { token: accepted.body.access_token });
    expect(me.body).toEqual(expect.objectContaining({ org_id: owner.orgId, role: 'member' }));
  });

  test('an invitation token works once', async () => {
    const owner = await signup('org-reuse');
    const { token } = await invite(owner, 'member');
    expect((await call('POST', '/v1/org/invitations/accept', { body: { token, password: PASSWORD } })).status).toBe(200);
    const again = await call('POST', '/v1/org/invitations/accept', { body: { token, password: PASSWORD } });
    isProblem(again, 400);
    const members = await call('GET', '/v1/org/members', { token: owner.token });
    expect(members.body.members).toHaveLength(2);
  });

  test('an unknown invitation token is a 400', async () => {
    isProblem(await call('POST', '/v1/org/invitations/accept', { body: { token: `inv_${randomUUID()}`, password: PASSWORD } }), 400);
  });

  test('bad input is a 400 that names the field', async () => {
    const owner = await signup('org-bad-input');
    const missing = await call('POST', '/v1/org/invite', { token: owner.token, body: { role: 'member' } });
    isProblem(missing, 400);
    expect(missing.body.detail).toContain('email');

    for (const role of ['owner', 'superuser']) {
      const r = await call('POST', '/v1/org/invite', { token: owner.token, body: { email: uniqueEmail('bad-role'), role } });
      isProblem(r, 400);
      expect(r.body.detail).toContain('role');
    }

    const notAnEmail = await call('POST', '/v1/org/invite', { token: owner.token, body: { email: 'not-an-email', role: 'member' } });
    isProblem(notAnEmail, 400);
    expect(notAnEmail.body.detail).toContain('email');

    // Nothing was created by the rejected requests.
    const members = await call('GET', '/v1/org/members', { token: owner.token });
    expect(members.body.members).toHaveLength(1);
  });

  test('inviting an e-mail that already has an account is a 409', async () => {
    const owner = await signup('org-dup-owner');
    const other = await signup('org-dup-other');
    isProblem(await call('POST', '/v1/org/invite', { token: owner.token, body: { email: other.email, role: 'member' } }), 409);
    // Case does not matter.
    isProblem(await call('POST', '/v1/org/invite', { token: owner.token, body: { email: other.email.toUpperCase(), role: 'member' } }), 409);
    // The other account stays in its own organization.
    const me = await call('GET', '/v1/auth/me', { token: other.token });
    expect(me.body.org_id).toBe(other.orgId);
  });

  test('a member cannot invite; an admin can', async () => {
    const owner = await signup('org-member-invite');
    const member = await join(owner, 'member');
    isProblem(await call('POST', '/v1/org/invite', { token: member.token, body: { email: uniqueEmail('by-member'), role: 'member' } }), 403);
    const admin = await join(owner, 'admin');
    const r = await call('POST', '/v1/org/invite', { token: admin.token, body: { email: uniqueEmail('by-admin'), role: 'member' } });
    expect(r.status).toBe(200);
  });
});

describe('PATCH /v1/org/members/{user_id}', () => {
  test('an owner promotes a member to admin', async () => {
    const owner = await signup('org-promote');
    const member = await join(owner, 'member');
    const r = await call('PATCH', `/v1/org/members/${member.userId}`, { token: owner.token, body: { role: 'admin' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(expect.objectContaining({ id: member.userId, user_id: member.userId, email: member.email, role: 'admin' }));
    expect(await roleIn(owner, member.userId)).toBe('admin');
    // The promoted user's own view agrees, and it can now manage (invite).
    expect((await call('GET', '/v1/auth/me', { token: member.token })).body.role).toBe('admin');
    expect((await call('POST', '/v1/org/invite', { token: member.token, body: { email: uniqueEmail('promoted'), role: 'member' } })).status).toBe(200);
  });

  test('an admin cannot make anyone owner', async () => {
    const owner = await signup('org-admin-owner');
    const admin = await join(owner, 'admin');
    const member = await join(owner, 'member');
    isProblem(await call('PATCH', `/v1/org/members/${member.userId}`, { token: admin.token, body: { role: 'owner' } }), 403);
    isProblem(await call('PATCH', `/v1/org/members/${admin.userId}`, { token: admin.token, body: { role: 'owner' } }), 403);
    // Nor demote the owner.
    isProblem(await call('PATCH', `/v1/org/members/${owner.userId}`, { token: admin.token, body: { role: 'member' } }), 403);
    expect(await roleIn(owner, member.userId)).toBe('member');
    expect(await roleIn(owner, admin.userId)).toBe('admin');
    expect(await roleIn(owner, owner.userId)).toBe('owner');
    // An admin may change a member's role below owner.
    const ok = await call('PATCH', `/v1/org/members/${member.userId}`, { token: admin.token, body: { role: 'admin' } });
    expect(ok.status).toBe(200);
    expect(await roleIn(owner, member.userId)).toBe('admin');
  });

  test('a member cannot change roles', async () => {
    const owner = await signup('org-member-patch');
    const member = await join(owner, 'member');
    const other = await join(owner, 'member');
    isProblem(await call('PATCH', `/v1/org/members/${other.userId}`, { token: member.token, body: { role: 'admin' } }), 403);
    isProblem(await call('PATCH', `/v1/org/members/${member.userId}`, { token: member.token, body: { role: 'admin' } }), 403);
    expect(await roleIn(owner, other.userId)).toBe('member');
    expect(await roleIn(owner, member.userId)).toBe('member');
  });

  test('the last owner cannot be demoted; with a second owner the first can be', async () => {
    const owner = await signup('org-last-owner');
    const member = await join(owner, 'member');
    const r = await call('PATCH', `/v1/org/members/${owner.userId}`, { token: owner.token, body: { role: 'admin' } });
    isProblem(r, 409);
    expect(await roleIn(owner, owner.userId)).toBe('owner');

    const promote = await call('PATCH', `/v1/org/members/${member.userId}`, { token: owner.token, body: { role: 'owner' } });
    expect(promote.status).toBe(200);
    expect(promote.body.role).toBe('owner');

    const demote = await call('PATCH', `/v1/org/members/${owner.userId}`, { token: owner.token, body: { role: 'member' } });
    expect(demote.status).toBe(200);
    expect(demote.body.role).toBe('member');
    expect(await roleIn(member, owner.userId)).toBe('member');
    expect(await roleIn(member, member.userId)).toBe('owner');

    // Now the remaining owner is the last one.
    isProblem(await call('PATCH', `/v1/org/members/${member.userId}`, { token: member.token, body: { role: 'admin' } }), 409);
    // And the demoted former owner has lost its management rights.
    isProblem(await call('PATCH', `/v1/org/members/${member.userId}`, { token: owner.token, body: { role: 'member' } }), 403);
  });

  test('an invalid role is a 400 naming role', async () => {
    const owner = await signup('org-bad-role');
    const member = await join(owner, 'member');
    for (const body of [{ role: 'superuser' }, {}, { role: 42 }]) {
      const r = await call('PATCH', `/v1/org/members/${member.userId}`, { token: owner.token, body });
      isProblem(r, 400);
      expect(r.body.detail).toContain('role');
    }
    expect(await roleIn(owner, member.userId)).toBe('member');
  });

  test('a user of another organization is a 404, and so is a garbage id', async () => {
    const owner = await signup('org-cross-a');
    const stranger = await signup('org-cross-b');
    isProblem(await call('PATCH', `/v1/org/members/${stranger.userId}`, { token: owner.token, body: { role: 'member' } }), 404);
    // The stranger is untouched: still owner of its own organization.
    expect((await call('GET', '/v1/auth/me', { token: stranger.token })).body).toEqual(expect.objectContaining({ org_id: stranger.orgId, role: 'owner' }));
    for (const id of ['not-a-uuid', randomUUID(), "1' OR '1'='1"]) {
      isProblem(await call('PATCH', `/v1/org/members/${encodeURIComponent(id)}`, { token: owner.token, body: { role: 'member' } }), 404);
    }
  });

  test('without a token is a 401', async () => {
    const owner = await signup('org-patch-noauth');
    isProblem(await call('PATCH', `/v1/org/members/${owner.userId}`, { body: { role: 'member' } }), 401);
    expect(await roleIn(owner, owner.userId)).toBe('owner');
  });
});

describe('DELETE /v1/org/members/{user_id}', () => {
  test('removing a member ends its sessions; at next login it gets an organization of its own', async () => {
    const owner = await signup('org-remove');
    const member = await join(owner, 'member');
    expect((await call('GET', '/v1/auth/me', { token: member.token })).status).toBe(200);

    const r = await call('DELETE', `/v1/org/members/${member.userId}`, { token: owner.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');

    // The member's existing token is rejected at once.
    isProblem(await call('GET', '/v1/auth/me', { token: member.token }), 401);
    isProblem(await call('GET', '/v1/org/members', { token: member.token }), 401);

    const members = await call('GET', '/v1/org/members', { token: owner.token });
    expect(members.body.members.map((m: { user_id: string }) => m.user_id)).toEqual([owner.userId]);

    // The account survives and can log in, landing in a fresh organization it owns.
    const fresh = await login(member.email, member.password);
    const me = await call('GET', '/v1/auth/me', { token: fresh });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(member.userId);
    expect(me.body.org_id).toEqual(expect.any(String));
    expect(me.body.org_id).not.toBe(owner.orgId);
    expect(me.body.role).toBe('owner');
    const own = await call('GET', '/v1/org/members', { token: fresh });
    expect(own.body.members).toEqual([expect.objectContaining({ user_id: member.userId, role: 'owner' })]);

    // Deleting it again from the old organization finds nobody.
    isProblem(await call('DELETE', `/v1/org/members/${member.userId}`, { token: owner.token }), 404);
  });

  test('the last owner cannot be removed', async () => {
    const owner = await signup('org-remove-last');
    await join(owner, 'member');
    isProblem(await call('DELETE', `/v1/org/members/${owner.userId}`, { token: owner.token }), 409);
    expect((await call('GET', '/v1/auth/me', { token: owner.token })).body).toEqual(expect.objectContaining({ org_id: owner.orgId, role: 'owner' }));
  });

  test('a user of another organization, or an unknown id, is a 404', async () => {
    const owner = await signup('org-remove-cross-a');
    const stranger = await signup('org-remove-cross-b');
    isProblem(await call('DELETE', `/v1/org/members/${stranger.userId}`, { token: owner.token }), 404);
    expect((await call('GET', '/v1/auth/me', { token: stranger.token })).body).toEqual(expect.objectContaining({ org_id: stranger.orgId, role: 'owner' }));
    isProblem(await call('DELETE', '/v1/org/members/not-a-uuid', { token: owner.token }), 404);
    isProblem(await call('DELETE', `/v1/org/members/${randomUUID()}`, { token: owner.token }), 404);
  });

  test('a member cannot remove anyone; an admin cannot remove an owner', async () => {
    const owner = await signup('org-remove-rights');
    const member = await join(owner, 'member');
    const other = await join(owner, 'member');
    const admin = await join(owner, 'admin');
    isProblem(await call('DELETE', `/v1/org/members/${other.userId}`, { token: member.token }), 403);
    isProblem(await call('DELETE', `/v1/org/members/${owner.userId}`, { token: member.token }), 403);
    isProblem(await call('DELETE', `/v1/org/members/${owner.userId}`, { token: admin.token }), 403);
    const members = await call('GET', '/v1/org/members', { token: owner.token });
    expect(members.body.members).toHaveLength(4);
    // Both tokens still work.
    expect((await call('GET', '/v1/auth/me', { token: other.token })).status).toBe(200);
    // An admin may remove a member.
    expect((await call('DELETE', `/v1/org/members/${other.userId}`, { token: admin.token })).status).toBe(204);
    expect(await roleIn(owner, other.userId)).toBeUndefined();
  });

  test('without a token is a 401', async () => {
    const owner = await signup('org-remove-noauth');
    const member = await join(owner, 'member');
    isProblem(await call('DELETE', `/v1/org/members/${member.userId}`), 401);
    expect(await roleIn(owner, member.userId)).toBe('member');
  });
});

// Issue 8 §5: member records follow the reference OrgMemberResponse; invitations
// InviteMemberResponse. Every action records its resource in the audit log.
describe('member records and their audit events', () => {
  test('a display name chosen at acceptance is listed and returned; without one the field is absent', async () => {
    const owner = await signup('org-display');
    const { email, token } = await invite(owner, 'member');
    const accepted = await call('POST', '/v1/org/invitations/accept', { body: { token, password: PASSWORD, display_name: 'Ada Lovelace' } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({
      message: expect.any(String), email, role: 'member', access_token: expect.any(String), token_type: 'Bearer', expires_in: expect.any(Number),
    });
    const me = await call('GET', '/v1/auth/me', { token: accepted.body.access_token });

    const members = (await call('GET', '/v1/org/members', { token: owner.token })).body.members as Record<string, unknown>[];
    expect(members.find((m) => m.id === me.body.id)).toEqual(expect.objectContaining({ display_name: 'Ada Lovelace', role: 'member' }));
    expect(members.find((m) => m.id === owner.userId)).not.toHaveProperty('display_name');

    const patched = await call('PATCH', `/v1/org/members/${me.body.id}`, { token: owner.token, body: { role: 'admin' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      id: me.body.id, user_id: me.body.id, email, display_name: 'Ada Lovelace', role: 'admin', auth_method: 'password',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  test('invite, accept, role change and removal are audited with their resource', async () => {
    const owner = await signup('org-audit');
    const { email, token } = await invite(owner, 'member');
    const accepted = await call('POST', '/v1/org/invitations/accept', { body: { token, password: PASSWORD } });
    const userId = (await call('GET', '/v1/auth/me', { token: accepted.body.access_token })).body.id as string;
    expect((await call('PATCH', `/v1/org/members/${userId}`, { token: owner.token, body: { role: 'admin' } })).status).toBe(200);
    expect((await call('DELETE', `/v1/org/members/${userId}`, { token: owner.token })).status).toBe(204);

    const events = (await call('GET', '/v1/audit/events?limit=100', { token: owner.token })).body.events as any[];
    const one = (action: string) => {
      const found = events.filter((e) => e.action === action);
      expect(found).toHaveLength(1);
      return found[0];
    };
    const invited = one('org.invite');
    expect(invited).toEqual(expect.objectContaining({
      actor_id: owner.userId, resource_type: 'invitation', resource_id: expect.stringMatching(/^[0-9a-f-]{36}$/), details: expect.objectContaining({ role: 'member' }),
    }));
    expect(JSON.stringify(invited)).not.toContain(email); // the address is not copied into the log
    expect(one('org.invite_accepted')).toEqual(expect.objectContaining({ actor_id: userId, resource_type: 'user', resource_id: userId }));
    expect(one('org.member_role_change')).toEqual(expect.objectContaining({ actor_id: owner.userId, resource_type: 'user', resource_id: userId, details: expect.objectContaining({ role: 'admin' }) }));
    expect(one('org.member_remove')).toEqual(expect.objectContaining({ actor_id: owner.userId, resource_type: 'user', resource_id: userId }));
  });
});
