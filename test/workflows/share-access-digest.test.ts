// The share-access digest: the workflow with swapped activities on the real Temporal dev server
// (a burst of opens is one round and one mail, opens after a mail make one more, an empty round
// ends it, a closed digest starts again, a failed start is left to the sweeper), then the real
// activity against the test stack's Postgres (the take, the creator's address, the mail's text),
// and the stack's own worker re-driving unmailed opens into one mail through SMTP.
import { randomBytes, randomUUID } from 'node:crypto';
import { defaultPayloadConverter, type Client } from '@temporalio/client';
import type { ShareActivities } from '../../activities/shares.ts';
import { createShareActivities, LISTED_ACCESSES } from '../../activities/shares.ts';
import { SharesClient, SHARES_TASK_QUEUE, shareAccessDigestWorkflowId } from '../../domain/shares/client.ts';
import { sharesWithUnnotifiedAccesses } from '../../domain/shares/access-notices.ts';
import type { OutgoingMail } from '../../domain/mail/outbox.ts';
import { startHarness, withWorker, until, type Harness } from './harness.ts';
import { recordingLogger } from './fakes.ts';
import { closeDb, db, mailTo, signup, type Account } from '../helpers/api.ts';
import { pgEm } from '../helpers/pg-em.ts';
import { newVault, putOk, rnd } from '../helpers/vault-fixtures.ts';

let harness: Harness | undefined;
const h = () => harness!;
beforeAll(async () => { harness = await startHarness(); }, 120_000);
afterAll(async () => { await harness?.stop(); });

/** mailAccessDigest over a counter of unmailed opens: each call takes them all, one "mail" per call that found some. */
function fakeShareActivities() {
  const store = { unmailed: 0 };
  const calls: string[] = [];
  const mails: number[] = [];
  const activities: ShareActivities = {
    async mailAccessDigest(shareId) {
      calls.push(shareId);
      const n = store.unmailed;
      store.unmailed = 0;
      if (n > 0) mails.push(n);
      return n;
    },
  };
  return { store, calls, mails, activities };
}

describe('share access digest workflow', () => {
  test('a burst of opens is one mail, opens after it one more, and an empty round ends the digest', async () => {
    const shareId = randomUUID();
    const fake = fakeShareActivities();
    const logger = recordingLogger();
    const client = new SharesClient(h().env.client, logger.log);
    const handle = h().env.client.workflow.getHandle(shareAccessDigestWorkflowId(shareId));
    const out = await withWorker(h(), SHARES_TASK_QUEUE, fake.activities, async () => {
      for (let i = 0; i < 5; i++) { fake.store.unmailed++; await client.startAccessDigest(shareId, 1); }
      const firstRun = (await handle.describe()).runId;
      await until('first mail', () => fake.mails.length === 1);
      // Opens while the digest waits its window after the mail: absorbed by the same run.
      for (let i = 0; i < 2; i++) { fake.store.unmailed++; await client.startAccessDigest(shareId, 1); }
      const result = await handle.result();
      return { result, firstRun, lastRun: (await handle.describe()).runId };
    });
    expect(handle.workflowId).toBe(`share-access-digest:${shareId}`);
    expect(fake.mails).toEqual([5, 2]);
    expect(fake.calls).toEqual([shareId, shareId, shareId]);
    expect(out.result).toBe(7);
    expect(out.lastRun).toBe(out.firstRun);
    expect(logger.lines).toEqual([]);
    const events = (await handle.fetchHistory()).events!;
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes).length).toBe(3);
    const started = events[0]!.workflowExecutionStartedEventAttributes!;
    expect(started.input!.payloads!.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([shareId, 1]);
  });

  test('a digest that has closed starts again for the next open', async () => {
    const shareId = randomUUID();
    const fake = fakeShareActivities();
    const client = new SharesClient(h().env.client, recordingLogger().log);
    const handle = h().env.client.workflow.getHandle(shareAccessDigestWorkflowId(shareId));
    const runs = await withWorker(h(), SHARES_TASK_QUEUE, fake.activities, async () => {
      fake.store.unmailed = 1;
      await client.startAccessDigest(shareId, 0.1);
      const first = (await handle.describe()).runId;
      await handle.result();
      fake.store.unmailed = 3;
      await client.startAccessDigest(shareId, 0.1);
      const second = (await handle.describe()).runId;
      return { first, second, result: await handle.result() };
    });
    expect(runs.second).not.toBe(runs.first);
    expect(runs.result).toBe(3);
    expect(fake.mails).toEqual([1, 3]);
  });

  test('a start that fails is logged and left to the sweeper, never thrown at the request', async () => {
    const down = { workflow: { start: () => Promise.reject(new Error('Temporal unavailable')) } } as unknown as Client;
    const logger = recordingLogger();
    const shareId = randomUUID();
    await expect(new SharesClient(down, logger.log).startAccessDigest(shareId, 1)).resolves.toBeUndefined();
    expect(logger.lines).toEqual([expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ workflowId: `share-access-digest:${shareId}` }) })]);
  });
});

describe('share access digest against the stack', () => {
  let owner: Account;
  let secretId: string;
  let vaultId: string;
  const path = `${rnd('shared')}/db-password`;

  beforeAll(async () => {
    owner = await signup('share-digest');
    vaultId = await newVault(owner);
    await putOk(owner, vaultId, path, 'value-never-mailed');
    secretId = (await db().query<{ id: string }>('SELECT id FROM secrets WHERE vault_id = $1 AND path = $2', [vaultId, path])).rows[0]!.id;
  }, 60_000);
  afterAll(async () => { await closeDb(); });

  async function newShare(by: { id: string; type: 'user' | 'agent' }, recipient: { type: string; email?: string }): Promise<{ id: string; prefix: string; link: string }> {
    const id = randomUUID();
    const link = randomBytes(16).toString('hex');
    await db().query(
      `INSERT INTO shares (id, org_id, secret_id, vault_id, link_digest, link_sealed, link_prefix, created_by, created_by_type, created_ip,
         recipient_type, recipient_email, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, '127.0.0.1', $10, $11, now() + interval '1 day')`,
      [id, owner.orgId, secretId, vaultId, rnd('digest'), Buffer.from('sealed'), link.slice(0, 8), by.id, by.type, recipient.type, recipient.email ?? null]);
    return { id, prefix: link.slice(0, 8), link };
  }
  async function open(shareId: string, n: number, ago = '0 seconds'): Promise<void> {
    for (let i = 0; i < n; i++) {
      await db().query(`INSERT INTO share_accesses (id, share_id, org_id, accessed_at, client_ip) VALUES ($1, $2, $3, now() - $4::interval + make_interval(secs => $5), $6)`,
        [randomUUID(), shareId, owner.orgId, ago, i / 1000, `203.0.113.${i % 250}`]);
    }
  }
  function recordingActivities() {
    const sent: OutgoingMail[] = [];
    const activities = createShareActivities({
      em: () => pgEm(db()),
      mailer: { transaction: (em, work) => em.transactional((tx) => work(tx, async (m) => { sent.push(m); })) },
    });
    return { sent, activities };
  }

  test('one mail to the creator about every unmailed open, once; the value and the link never in it', async () => {
    const share = await newShare({ id: owner.userId, type: 'user' }, { type: 'external_email', email: 'friend@example.org' });
    await open(share.id, LISTED_ACCESSES + 3);
    const { sent, activities } = recordingActivities();
    expect(await activities.mailAccessDigest(share.id)).toBe(LISTED_ACCESSES + 3);
    expect(await activities.mailAccessDigest(share.id)).toBe(0);
    expect(sent).toHaveLength(1);
    const mail = sent[0]!;
    expect(mail.to).toBe(owner.email);
    expect(mail.subject).toBe(`Your shared secret was opened ${LISTED_ACCESSES + 3} times`);
    expect(mail.text).toContain(path);
    expect(mail.text).toContain(`share ${share.prefix}…`);
    expect(mail.text).toContain('external_email (friend@example.org)');
    expect(mail.text).toContain('DELETE /v1/share/{share_id}');
    expect(mail.text.match(/from 203\.0\.113\.\d+/g)).toHaveLength(LISTED_ACCESSES);
    expect(mail.text).toContain('and 3 more');
    expect(mail.text).not.toContain('value-never-mailed');
    expect(mail.text).not.toContain(share.link);
    const left = await db().query('SELECT 1 FROM share_accesses WHERE share_id = $1 AND notified_at IS NULL', [share.id]);
    expect(left.rowCount).toBe(0);
  });

  test("an agent's share mails its human; without an active user the opens are only marked", async () => {
    const agentId = randomUUID();
    await db().query(`INSERT INTO agents (id, org_id, name, status, created_by) VALUES ($1, $2, $3, 'active', $4)`, [agentId, owner.orgId, rnd('agent'), owner.userId]);
    const byAgent = await newShare({ id: agentId, type: 'agent' }, { type: 'creator' });
    const orphan = await newShare({ id: randomUUID(), type: 'user' }, { type: 'anyone_with_link' });
    await open(byAgent.id, 1);
    await open(orphan.id, 2);
    const { sent, activities } = recordingActivities();
    expect(await activities.mailAccessDigest(byAgent.id)).toBe(1);
    expect(await activities.mailAccessDigest(orphan.id)).toBe(2);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([[owner.email, 'Your shared secret was opened 1 time']]);
  });

  test("the stack's sweeper starts digests of old unmailed opens, and the creator gets one mail", async () => {
    const share = await newShare({ id: owner.userId, type: 'user' }, { type: 'anyone_with_link' });
    await open(share.id, 3, '2 minutes');
    expect(await sharesWithUnnotifiedAccesses(pgEm(db()), 60)).toContain(share.id);
    const m = await mailTo(owner.email, new RegExp(`share ${share.prefix}… of the secret (\\S+) was opened (\\d+) times`), 45_000);
    expect([m[1], m[2]]).toEqual([path, '3']);
  }, 60_000);
});
