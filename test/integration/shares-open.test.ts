// Opening shares (§4.6, §5 item 9): the access cap under parallel opens, passphrases and their
// lock, IP allowlists, the latest version, and what the audit log, the event outbox and the
// creator's batched access mail say (never the value, never the whole link id).
//
// Budgets: creating shares is limited to 10 a minute per organization, so tests sign up their own
// organizations; opening is limited per client address (burst 60, then 5/s), so opens go out from
// their own loopback addresses in 127.11.0.0/16 (shares.test.ts uses 127.10.0.0/16).
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { stackTemporalClient } from '../helpers/temporal-client.ts';
import { call, closeDb, db, mailTo, type Account, type Res } from '../helpers/api.ts';
import { rnd, isProblem, putOk } from '../helpers/vault-fixtures.ts';
import { shareAccessDigestWorkflowId } from '../../domain/shares/client.ts';
import { openShare, shareOk, ownerWithSecret as ownerWithSecretOf } from '../helpers/share-fixtures.ts';

let temporal: Client;
beforeAll(async () => { temporal = await stackTemporalClient(); });
afterAll(async () => {
  await temporal.connection.close();
  await closeDb();
});

const ownerWithSecret = (tag: string) => ownerWithSecretOf(tag, { path: 'svc/api-token', type: 'api_key', value: rnd('share-value') });

/** Every mail to `to` whose text matches `pattern`, oldest first. */
function mailsTo(to: string, pattern: RegExp): { subject: string; text: string }[] {
  return fs.readFileSync(process.env.TEST_MAILBOX!, 'utf8').split('\n').filter(Boolean)
    .map((l) => JSON.parse(l) as { to: string[]; subject: string; text: string })
    .filter((m) => m.to.includes(to.toLowerCase()) && pattern.test(m.text));
}

const tally = (rs: Res[]) => rs.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

test('max_access_count 1 under 50 parallel opens: exactly one 200 and 49 410s, 20 rounds', async () => {
  const ROUNDS = 20;
  const PARALLEL = 50;
  // Four organizations share five secrets each (10 share creations a minute per organization).
  const orgs = await Promise.all([0, 1, 2, 3].map((i) => ownerWithSecret(`share-cap-${i}`)));
  for (let round = 0; round < ROUNDS; round++) {
    const { owner, secretId, value } = orgs[round % orgs.length]!;
    const s = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link', max_access_count: 1 });
    const ip = `127.11.1.${round + 1}`; // each round its own address: 50 opens stay inside one address's burst
    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => openShare(s.id, { ip })));
    const counts = tally(answers);
    expect({ round, counts }).toEqual({ round, counts: { 200: 1, 410: PARALLEL - 1 } });
    const winner = answers.find((r) => r.status === 200)!;
    expect(winner.body).toEqual(expect.objectContaining({ id: secretId, value, access_count: 1, max_access_count: 1 }));
    for (const r of answers.filter((x) => x.status === 410)) expect(r.text).not.toContain(value);
    const row = await db().query('SELECT access_count FROM shares WHERE org_id = $1 AND link_prefix = $2', [owner.orgId, s.id.slice(0, 8)]);
    expect(row.rows).toEqual([{ access_count: 1 }]);
  }
}, 240_000);

test('opens are limited per client address: a burst of 60, then 429 with Retry-After', async () => {
  const ip = '127.11.5.1';
  const started = Date.now();
  // Unknown links: the address's bucket is taken before the link is even looked at.
  const answers = await Promise.all(Array.from({ length: 90 }, () => openShare(randomUUID(), { ip })));
  const elapsed = (Date.now() - started) / 1000;
  const counts = tally(answers);
  expect(Object.keys(counts).sort()).toEqual(['404', '429']);
  expect(counts[404]).toBeGreaterThanOrEqual(60);
  expect(counts[404]).toBeLessThanOrEqual(60 + Math.ceil(5 * elapsed) + 1); // refill: 5 a second
  const limited = answers.find((r) => r.status === 429)!;
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  // Another address is not affected.
  isProblem(await openShare(randomUUID(), { ip: '127.11.5.2' }), 404);
});

test('opens are limited per share across addresses: a burst of 60, then 429', async () => {
  const { owner, secretId } = await ownerWithSecret('share-per-share');
  const s = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link' });
  const started = Date.now();
  // 4 addresses x 20 opens: no address reaches its own limit.
  const answers = await Promise.all(Array.from({ length: 80 }, (_x, i) => openShare(s.id, { ip: `127.11.6.${(i % 4) + 1}` })));
  const elapsed = (Date.now() - started) / 1000;
  const counts = tally(answers);
  expect(Object.keys(counts).sort()).toEqual(['200', '429']);
  expect(counts[200]).toBeGreaterThanOrEqual(60);
  expect(counts[200]).toBeLessThanOrEqual(60 + Math.ceil(elapsed) + 1); // refill: 1 a second
  const outbound = (await call('GET', '/v1/shares/outbound', { token: owner.token })).body.shares;
  expect(outbound.find((x: any) => x.id === s.id).access_count).toBe(counts[200]);
});

test('passphrase: right in the header or the body opens; wrong or missing is 403; five wrong in a row lock it (429)', async () => {
  const { owner, secretId, value } = await ownerWithSecret('share-pass');
  const PASS = 'open sesame 42';
  const ip = '127.11.2.1';
  const s = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link', passphrase: PASS });

  expect((await openShare(s.id, { ip, passphrase: PASS })).body.value).toBe(value);
  const viaBody = await openShare(s.id, { ip, method: 'POST', body: { passphrase: PASS } });
  expect(viaBody.status).toBe(200);
  expect(viaBody.body.value).toBe(value);
  for (const refused of [
    await openShare(s.id, { ip, passphrase: 'not the passphrase' }),
    await openShare(s.id, { ip }),
    await openShare(s.id, { ip, method: 'POST', body: { passphrase: 'not the passphrase' } }),
    await openShare(s.id, { ip, method: 'POST', body: {} }),
  ]) {
    isProblem(refused, 403);
    expect(refused.text).not.toContain(value);
  }
  expect((await openShare(s.id, { ip, passphrase: PASS })).status).toBe(200); // a right one resets the count

  const locked = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link', passphrase: PASS });
  for (let i = 1; i <= 4; i++) isProblem(await openShare(locked.id, { ip, passphrase: `wrong guess ${i}` }), 403);
  const fifth = await openShare(locked.id, { ip, passphrase: 'wrong guess 5' });
  isProblem(fifth, 429);
  const retry = Number(fifth.headers.get('retry-after'));
  expect(retry).toBeGreaterThan(800);
  expect(retry).toBeLessThanOrEqual(900);
  for (const attempt of [
    await openShare(locked.id, { ip, passphrase: PASS }),
    await openShare(locked.id, { ip, method: 'POST', body: { passphrase: PASS } }),
    await openShare(locked.id, { ip }),
  ]) {
    isProblem(attempt, 429);
    expect(Number(attempt.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(attempt.text).not.toContain(value);
  }
  // The other share is not affected by this one's lock.
  expect((await openShare(s.id, { ip, passphrase: PASS })).status).toBe(200);
  const outbound = (await call('GET', '/v1/shares/outbound', { token: owner.token })).body.shares;
  expect(outbound.find((x: any) => x.id === locked.id).access_count).toBe(0);
});

test("IP allowlist ['127.0.0.2/32']: 200 from 127.0.0.2, 403 from 127.0.0.3", async () => {
  const { owner, secretId, value } = await ownerWithSecret('share-allowlist');
  const s = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link', ip_allowlist: ['127.0.0.2/32'] });
  const inside = await openShare(s.id, { ip: '127.0.0.2' });
  expect(inside.status).toBe(200);
  expect(inside.body.value).toBe(value);
  const outside = await openShare(s.id, { ip: '127.0.0.3' });
  isProblem(outside, 403);
  expect(outside.body.detail).toMatch(/allowlist/i);
  expect(outside.text).not.toContain(value);

  const wide = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link', ip_allowlist: ['10.0.0.0/8', '127.11.9.0/24'] });
  expect((await openShare(wide.id, { ip: '127.11.9.77' })).status).toBe(200);
  isProblem(await openShare(wide.id, { ip: '127.11.10.77' }), 403);
});

test('a share opened after a new version of its secret returns the new value', async () => {
  const { owner, vaultId, secretId, path, value } = await ownerWithSecret('share-version');
  const s = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link' });
  const ip = '127.11.3.1';
  expect((await openShare(s.id, { ip })).body).toEqual(expect.objectContaining({ id: secretId, path, value }));
  const next = rnd('rotated-value');
  const w = await putOk(owner, vaultId, path, next);
  expect(w.body).toEqual(expect.objectContaining({ id: secretId, version: 2 }));
  const after = await openShare(s.id, { ip });
  expect(after.status).toBe(200);
  expect(after.body).toEqual(expect.objectContaining({ id: secretId, path, value: next, access_count: 2 }));
  expect(after.text).not.toContain(value);
});

describe('audit, events and the creator\'s mail', () => {
  let owner: Account;
  let secretId: string;
  let value: string;
  let s: any;
  let guarded: any;
  const ip = '127.11.4.1';
  const unknown = randomUUID();

  beforeAll(async () => {
    ({ owner, secretId, value } = await ownerWithSecret('share-audit'));
    s = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link' });
    guarded = await shareOk(owner.token, secretId, { recipient_type: 'anyone_with_link', passphrase: 'guarded passphrase' });
    // A burst of three opens, a refused open and an unknown link.
    const burst = await Promise.all([1, 2, 3].map(() => openShare(s.id, { ip })));
    expect(burst.map((r) => r.status)).toEqual([200, 200, 200]);
    isProblem(await openShare(guarded.id, { ip, passphrase: 'wrong passphrase' }), 403);
    isProblem(await openShare(unknown, { ip }), 404);
  });

  const shareRef = async (linkId: string): Promise<string> =>
    (await db().query('SELECT id FROM shares WHERE org_id = $1 AND link_prefix = $2', [owner.orgId, linkId.slice(0, 8)])).rows[0].id;

  async function allEvents(): Promise<any[]> {
    const out: any[] = [];
    let cursor: string | null = null;
    do {
      const r: Res = await call('GET', `/v1/audit/events?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: owner.token });
      expect(r.status).toBe(200);
      out.push(...r.body.events);
      cursor = r.body.next_cursor;
    } while (cursor);
    return out;
  }

  test('each open is a share.access record with the client address, never the value or the link', async () => {
    const ref = await shareRef(s.id);
    const r = await call('GET', '/v1/audit/events?action=share.access&limit=100', { token: owner.token });
    expect(r.status).toBe(200);
    const opens = r.body.events.filter((e: any) => e.resource_id === ref);
    expect(opens).toHaveLength(3);
    for (const e of opens) {
      expect(e).toEqual(expect.objectContaining({ action: 'share.access', resource_type: 'share', ip_address: ip, org_id: owner.orgId }));
      expect(e.details).toEqual(expect.objectContaining({ share_prefix: s.id.slice(0, 8), secret_id: secretId }));
      expect(e.details.request.path).toBe('/v1/share/[redacted]');
      expect(e.details).not.toHaveProperty('value');
      expect(JSON.stringify(e)).not.toContain(value);
      expect(JSON.stringify(e)).not.toContain(s.id);
    }
    expect(opens.map((e: any) => e.details.access_count).sort()).toEqual([1, 2, 3]);
    const denied = (await call('GET', '/v1/audit/events?action=share.access_denied&limit=100', { token: owner.token })).body.events;
    const refusal = denied.find((e: any) => e.resource_id === ref || e.details.share_prefix === guarded.id.slice(0, 8));
    expect(refusal).toEqual(expect.objectContaining({ ip_address: ip }));
    expect(refusal.details.status).toBe(403);
  });

  test('no audit record anywhere holds a whole link id or the value', async () => {
    const text = JSON.stringify(await allEvents());
    expect(text).toContain('share.create');
    for (const needle of [s.id, guarded.id, value]) expect(text).not.toContain(needle);
    // Also the records without an organization (public requests that matched no share).
    for (const needle of [s.id, guarded.id, unknown, value]) {
      const hits = await db().query('SELECT count(*)::int AS n FROM audit_events a WHERE strpos(row_to_json(a)::text, $1) > 0', [needle]);
      expect({ needle, n: hits.rows[0].n }).toEqual({ needle, n: 0 });
    }
    const masked = await db().query("SELECT count(*)::int AS n FROM audit_events WHERE details->>'path' = '/v1/share/[redacted]' AND ip_address = $1", [ip]);
    expect(masked.rows[0].n).toBeGreaterThanOrEqual(1);
  });

  test('share.created and share.accessed events reach the outbox without the link or the value', async () => {
    const ref = await shareRef(s.id);
    const rows = (await db().query("SELECT event_type, payload FROM event_outbox WHERE org_id = $1 AND payload->>'share_ref' = $2 ORDER BY seq", [owner.orgId, ref])).rows;
    expect(rows.map((r: any) => r.event_type)).toEqual(['share.created', 'share.accessed', 'share.accessed', 'share.accessed']);
    for (const r of rows) {
      const text = JSON.stringify(r.payload);
      expect(text).not.toContain(s.id);
      expect(text).not.toContain(value);
    }
  });

  test('the creator gets one mail for the burst of three opens, without the value or the link', async () => {
    const ref = await shareRef(s.id);
    const [, n] = await mailTo(owner.email, new RegExp(`share ${s.id.slice(0, 8)}\\S* of the secret \\S+ was opened (\\d+) time`));
    expect(Number(n)).toBe(3);
    // The digest run that sent it mailed about all three opens, and it has ended: no second mail follows.
    expect(await temporal.workflow.getHandle(shareAccessDigestWorkflowId(ref)).result()).toBe(3);
    const mails = mailsTo(owner.email, /was opened \d+ times?/);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.subject).toBe('Your shared secret was opened 3 times');
    expect(mail.text).toContain(ip);
    for (const needle of [value, s.id]) {
      expect(mail.text).not.toContain(needle);
      expect(mail.subject).not.toContain(needle);
    }
    const unmailed = await db().query('SELECT count(*)::int AS n FROM share_accesses WHERE share_id = $1 AND notified_at IS NULL', [ref]);
    expect(unmailed.rows[0].n).toBe(0);
  });
});
