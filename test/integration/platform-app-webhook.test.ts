// A platform app's own webhook (issue 35 §1, §4; spec §6.2 rule 5), end to end over the real stack:
// the app's platform events reach its webhook_url (a local receiver), signed with its own secret;
// another app of the same organization never gets them; the secret rotates in place (both secrets
// sign during the overlap, then only the new one); the organization's webhook routes never show
// the app's row; the app itself or its organization's managers rotate, nobody else; bad input is a
// 400 that changes nothing.
import { createHmac } from 'node:crypto';
import { call, closeDb, db, joinAsMember, signup, type Account, type Res } from '../helpers/api.ts';
import { auditFor } from '../helpers/agent-fixtures.ts';
import { startReceiver, type Receiver, type Received } from '../helpers/webhook-receiver.ts';
import { verifyBodyHex } from '../../domain/webhooks/signature.ts';

let receiver: Receiver;
let owner: Account;

type App = { id: string; key: string; path: string };

beforeAll(async () => {
  receiver = await startReceiver();
  owner = await signup('app-webhook-owner');
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
});

afterAll(async () => {
  await receiver.close();
  await closeDb();
});

const tag = () => Math.random().toString(36).slice(2, 10);

/** An app whose webhook_url is the receiver at its own path (set by PATCH: the reference's create has no webhook_url). */
async function appWithWebhook(name: string): Promise<App> {
  const created = await call('POST', '/v1/platform/apps', { token: owner.token, body: { name, slug: `${name}-${tag()}` } });
  expect(created.status).toBe(201);
  const path = `/${name}-${tag()}`;
  const patched = await call('PATCH', `/v1/platform/apps/${created.body.id}`, { token: owner.token, body: { webhook_url: receiver.url(path) } });
  expect(patched.status).toBe(200);
  return { id: created.body.id, key: created.body.api_key, path };
}

const rotate = (app: App, body?: unknown, token = app.key) =>
  call('POST', `/v1/platform/apps/${app.id}/rotate-webhook-secret`, { token, ...(body === undefined ? {} : { body }) });

/** platform.user.connected for the app: it provisions a new user by e-mail. */
async function connectUser(app: App): Promise<string> {
  const r = await call('POST', '/v1/platform/users/upsert', { token: app.key, body: { email: `u-${tag()}@users.app.test` } });
  expect(r.status).toBe(201);
  return r.body.connection_id;
}

/** The `n`-th delivery to the app's receiver (1-based), once it arrived. */
async function nth(app: App, n: number): Promise<Received> {
  return (await receiver.waitFor(n, app.path))[n - 1]!;
}

const hookOf = async (appId: string) =>
  (await db().query('SELECT id, url, is_active, secret_sealed FROM webhooks WHERE platform_app_id = $1', [appId])).rows[0] as
    { id: string; url: string; is_active: boolean; secret_sealed: Buffer } | undefined;

/** The Standard Webhooks signature (`v1,<base64>`) a receiver library computes with `secret`. */
function standardSignature(secret: string, h: Received['headers'], raw: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${h['webhook-id']}.${h['webhook-timestamp']}.${raw}`).digest('base64');
}

const isProblem = (r: Res, status: number) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
};

describe("an app's own webhook", () => {
  let a: App;
  let b: App;
  let first: string;

  beforeAll(async () => {
    a = await appWithWebhook('hooked-a');
    b = await appWithWebhook('hooked-b');
  });

  test('no secret handed out yet: the webhook sends nothing; the first rotation (the app itself) hands it out with no overlap', async () => {
    expect(await hookOf(a.id)).toMatchObject({ url: receiver.url(a.path), is_active: false });
    await connectUser(a); // before the first secret: never delivered (checked below, once later events arrived)
    const r = await rotate(a);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/), old_secret_valid_until: null });
    first = r.body.webhook_secret;
    expect(await hookOf(a.id)).toMatchObject({ is_active: true });
  });

  test("the app's platform event arrives at its webhook_url, signed with its secret", async () => {
    const connection = await connectUser(a);
    const got = await nth(a, 1);
    expect(got.body).toMatchObject({ type: 'platform.user.connected', org_id: owner.orgId, data: { platform_app_id: a.id, connection_id: connection } });
    expect(verifyBodyHex(first, got.raw, String(got.headers['x-webhook-signature']))).toBe(true);
    expect(got.headers['x-1claw-signature']).toBe(got.headers['x-webhook-signature']);
    expect(got.headers['x-webhook-signature-next']).toBeUndefined();
    expect(got.headers['webhook-signature']).toBe(standardSignature(first, got.headers, got.raw));
  });

  test("another app of the same organization gets its own events only, and the organization's webhooks get both", async () => {
    const org = await call('POST', '/v1/webhooks', { token: owner.token, body: { url: receiver.url(`/org-${tag()}`), events: ['platform.user.connected'] } });
    expect(org.status).toBe(201);
    const orgPath = new URL(org.body.url).pathname;
    const bSecret = (await rotate(b, {}, owner.token)).body.webhook_secret as string; // a manager rotates too
    const bConnection = await connectUser(b);
    const aConnection = await connectUser(a);
    const gotB = await nth(b, 1);
    expect(gotB.body.data).toMatchObject({ platform_app_id: b.id, connection_id: bConnection });
    expect(verifyBodyHex(bSecret, gotB.raw, String(gotB.headers['x-webhook-signature']))).toBe(true);
    const orgGot = await receiver.waitFor(2, orgPath);
    expect(orgGot.map((r) => r.body.data.platform_app_id).sort()).toEqual([a.id, b.id].sort());
    expect((await nth(a, 2)).body.data.connection_id).toBe(aConnection);
    // Every event B's webhook was given is B's and vice versa; A's webhook got nothing from before its first secret.
    const given = await db().query(
      `SELECT w.platform_app_id AS app, e.payload->>'platform_app_id' AS event_app FROM webhook_deliveries d
         JOIN webhooks w ON w.id = d.webhook_id JOIN event_outbox e ON e.id = d.event_id WHERE w.platform_app_id = ANY($1)`, [[a.id, b.id]]);
    expect(given.rows.filter((r) => r.app === a.id)).toHaveLength(2);
    expect(given.rows.filter((r) => r.app === b.id)).toHaveLength(1);
    expect(given.rows.every((r) => r.app === r.event_app)).toBe(true);
    expect(receiver.received(a.path).every((r) => r.body.data.platform_app_id === a.id)).toBe(true);
  });

  test('rotation with an overlap: the old secret keeps X-Webhook-Signature, the new one signs X-Webhook-Signature-Next, both in webhook-signature', async () => {
    const r = await rotate(a, { overlap_seconds: 300 });
    expect(r.status).toBe(200);
    const second: string = r.body.webhook_secret;
    expect(second).not.toBe(first);
    const until = Date.parse(r.body.old_secret_valid_until);
    expect(Math.abs(until - (Date.now() + 300_000))).toBeLessThan(30_000);
    await connectUser(a);
    const got = await nth(a, 3);
    // A receiver not yet updated verifies unchanged; an updated one checks either header.
    expect(verifyBodyHex(first, got.raw, String(got.headers['x-webhook-signature']))).toBe(true);
    expect(got.headers['x-1claw-signature']).toBe(got.headers['x-webhook-signature']);
    expect(verifyBodyHex(second, got.raw, String(got.headers['x-webhook-signature-next']))).toBe(true);
    expect(verifyBodyHex(second, got.raw, String(got.headers['x-webhook-signature']))).toBe(false);
    expect(String(got.headers['webhook-signature']).split(' ')).toEqual([standardSignature(second, got.headers, got.raw), standardSignature(first, got.headers, got.raw)]);

    // Without an overlap the old secret (and the one before it) stop at once.
    const z = await rotate(a, { overlap_seconds: 0 });
    expect(z.status).toBe(200);
    expect(z.body.old_secret_valid_until).toBeNull();
    const third: string = z.body.webhook_secret;
    await connectUser(a);
    const after = await nth(a, 4);
    expect(verifyBodyHex(third, after.raw, String(after.headers['x-webhook-signature']))).toBe(true);
    expect(after.headers['x-webhook-signature-next']).toBeUndefined();
    expect(after.headers['webhook-signature']).toBe(standardSignature(third, after.headers, after.raw));
    for (const old of [first, second]) expect(verifyBodyHex(old, after.raw, String(after.headers['x-webhook-signature']))).toBe(false);
  });

  test("the organization's webhook routes never show or change the app's webhook", async () => {
    const hook = (await hookOf(a.id))!;
    const list = await call('GET', '/v1/webhooks', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).not.toContain(hook.id);
    for (const [method, path, body] of [
      ['GET', `/v1/webhooks/${hook.id}`], ['PATCH', `/v1/webhooks/${hook.id}`, { is_active: false }], ['DELETE', `/v1/webhooks/${hook.id}`],
      ['GET', `/v1/webhooks/${hook.id}/deliveries`],
    ] as const) {
      isProblem(await call(method, path, { token: owner.token, body }), 404);
    }
    expect(await hookOf(a.id)).toMatchObject({ id: hook.id, is_active: true });
  });

  test('who may rotate: the app itself and its managers; another app gets 404, a member 403', async () => {
    isProblem(await rotate(a, {}, b.key), 404);
    const member = await joinAsMember(owner, 'app-webhook-member');
    isProblem(await rotate(a, {}, member.token), 403);
    const other = await signup('app-webhook-stranger');
    isProblem(await rotate(a, {}, other.token), 404);
  });

  test('bad input is a 400 problem and changes nothing', async () => {
    const before = (await hookOf(a.id))!;
    for (const body of [{ overlap_seconds: -1 }, { overlap_seconds: 999_999 }, { overlap_seconds: '300' }, { overlap_seconds: 1.5 }, { overlap_seconds: null }, []]) {
      const r = await rotate(a, body);
      isProblem(r, 400);
      expect(r.text).not.toMatch(/whsec_/);
    }
    expect((await hookOf(a.id))!.secret_sealed.equals(before.secret_sealed)).toBe(true);
  });

  test('the audit log records each rotation without the secret', async () => {
    const records = await auditFor(owner, 'platform.app.rotate_webhook_secret', a.id);
    expect(records).toHaveLength(3);
    expect(JSON.stringify(records)).not.toMatch(/whsec_/);
    expect(records.map((r) => r.details.first_secret).sort()).toEqual([false, false, true]);
  });
});

test('webhook_url follows the app: changed in place, cleared and deleted with it; no webhook_url is a 409', async () => {
  const app = await appWithWebhook('follows');
  const hook = (await hookOf(app.id))!;
  const moved = receiver.url(`/moved-${tag()}`);
  expect((await call('PATCH', `/v1/platform/apps/${app.id}`, { token: owner.token, body: { webhook_url: moved } })).status).toBe(200);
  expect(await hookOf(app.id)).toMatchObject({ id: hook.id, url: moved });
  expect((await call('PATCH', `/v1/platform/apps/${app.id}`, { token: owner.token, body: { webhook_url: null } })).status).toBe(200);
  expect(await hookOf(app.id)).toBeUndefined();
  isProblem(await rotate(app), 409);

  const again = await appWithWebhook('deleted');
  expect(await hookOf(again.id)).toBeDefined();
  expect((await call('DELETE', `/v1/platform/apps/${again.id}`, { token: owner.token })).status).toBe(204);
  expect(await hookOf(again.id)).toBeUndefined();
});
