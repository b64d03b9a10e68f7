// Every paginated list checks its cursor like any other input (domain/paging/cursor.ts): a cursor
// it did not write is a 400 naming `cursor`, whatever it decodes to (the probe's `?cursor=AA`, a
// NUL byte, was a 500 on the secrets list); the cursors it did write still page.
import fc from 'fast-check';
import { call, closeDb, signup, type Account } from '../helpers/api.ts';
import { isProblem, newVault, putOk } from '../helpers/vault-fixtures.ts';

afterAll(closeDb);

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
let owner: Account;
let lists: { name: string; url: string; items: string }[];

beforeAll(async () => {
  owner = await signup('cursors');
  const vault = await newVault(owner);
  for (const p of ['a/one', 'a/two', 'b/three']) await putOk(owner, vault, p, 'value-of-cursor-test');
  const hook = await call('POST', '/v1/webhooks', { token: owner.token, body: { url: 'http://127.0.0.1:9/hook', events: ['policy.created'] } });
  expect(hook.status).toBe(201);
  lists = [
    { name: 'secrets', url: `/v1/vaults/${vault}/secrets?limit=1`, items: 'secrets' },
    { name: 'audit events', url: '/v1/audit/events?limit=1', items: 'events' },
    { name: 'webhook deliveries', url: `/v1/webhooks/${hook.body.id}/deliveries?limit=1`, items: 'deliveries' },
  ];
});

const refusesCursor = async (url: string, cursor: string) => {
  const r = await call('GET', `${url}&cursor=${encodeURIComponent(cursor)}`, { token: owner.token });
  isProblem(r, 400);
  expect(r.body.errors).toEqual([expect.objectContaining({ field: 'cursor' })]);
};

test('the probe\'s NUL cursor and its kin are a 400 naming cursor on every list', async () => {
  const probes = ['AA', b64('\u0000'), b64('["secrets","a\u0000"]'), b64('["audit-events","99999999999999999999"]'), b64('seq:1'), '!!!'];
  for (const { url } of lists) for (const c of probes) await refusesCursor(url, c);
});

test('a cursor one list wrote pages that list and is refused by the others', async () => {
  const secretsPage = await call('GET', lists[0]!.url, { token: owner.token });
  const auditPage = await call('GET', lists[1]!.url, { token: owner.token });
  expect(secretsPage.body.next_cursor).toEqual(expect.any(String));
  expect(auditPage.body.next_cursor).toEqual(expect.any(String));
  const next = await call('GET', `${lists[0]!.url}&cursor=${secretsPage.body.next_cursor}`, { token: owner.token });
  expect(next.status).toBe(200);
  expect(next.body.secrets.map((s: any) => s.path)).toEqual(['a/two']);
  expect((await call('GET', `${lists[1]!.url}&cursor=${auditPage.body.next_cursor}`, { token: owner.token })).status).toBe(200);
  await refusesCursor(lists[1]!.url, secretsPage.body.next_cursor);
  await refusesCursor(lists[2]!.url, auditPage.body.next_cursor);
});

test('fuzz: random cursors answer 200 or a 400 problem on every list, never a 500', async () => {
  const cursors = fc.sample(fc.oneof(
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.uint8Array({ minLength: 1, maxLength: 40 }).map((b) => Buffer.from(b).toString('base64url')),
    fc.tuple(fc.constantFrom('secrets', 'audit-events', 'webhook-deliveries'), fc.jsonValue({ maxDepth: 2 })).map((t) => b64(JSON.stringify(t))),
  ), 60);
  for (const { name, url } of lists) {
    for (const c of cursors) {
      const r = await call('GET', `${url}&cursor=${encodeURIComponent(c)}`, { token: owner.token });
      if (r.status !== 200) {
        expect({ list: name, cursor: c, status: r.status }).toEqual({ list: name, cursor: c, status: 400 });
        expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
    }
  }
});
