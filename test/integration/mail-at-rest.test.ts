// Mailed one-time tokens at rest: the outbox keeps mail bodies sealed, so after delivery no
// reset or invitation token is readable anywhere in PostgreSQL's data directory (tables, old row
// versions, WAL); the mail itself still arrives.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID, createSecretKey, randomBytes } from 'node:crypto';
import { call, closeDb, db, eventually, mailTo, signup, uniqueEmail } from '../helpers/api.ts';
import { filesContaining } from '../helpers/vault-fixtures.ts';
import { sealMailBody, openMailBody } from '../../domain/mail/sealed-body.ts';
import { DecryptionError } from '../../domain/crypto/aead.ts';

afterAll(closeDb);

type OutboxRow = { status: string; body_text: string | null; body_sealed: Buffer | null };

/** Every outbox row to `to`, once all of them are delivered. */
async function deliveredRows(to: string): Promise<OutboxRow[]> {
  return eventually(`mail to ${to} marked sent`, async () => {
    const q = await db().query<OutboxRow>('SELECT status, body_text, body_sealed FROM mail_outbox WHERE lower(to_address) = lower($1)', [to]);
    return q.rows.length > 0 && q.rows.every((r) => r.status === 'sent') ? q.rows : undefined;
  });
}

describe('mail outbox at rest', () => {
  test('reset and invitation tokens are delivered, yet appear in no file of the data directory', async () => {
    const owner = await signup('mail-rest');
    expect((await call('POST', '/v1/auth/forgot-password', { body: { email: owner.email } })).body.status).toBe('email_sent');
    const [, resetToken] = await mailTo(owner.email, /Reset token: (rst_\S+)/);
    const invitee = uniqueEmail('mail-rest-invitee');
    expect((await call('POST', '/v1/org/invite', { token: owner.token, body: { email: invitee, role: 'member' } })).status).toBe(200);
    const [, inviteToken] = await mailTo(invitee, /Invitation token: (inv_\S+)/);

    // Delivered bodies are erased, sealed or not.
    for (const row of [...await deliveredRows(owner.email), ...await deliveredRows(invitee)]) {
      expect(row).toEqual({ status: 'sent', body_text: null, body_sealed: null });
    }

    await db().query('CHECKPOINT');
    const pgDir = path.join(process.env.TEST_DATA_DIR!, 'postgres');
    expect(fs.existsSync(pgDir)).toBe(true);
    // The recipient is stored in clear on purpose: proves the scan sees the outbox's data.
    expect(filesContaining(pgDir, Buffer.from(invitee, 'utf8')).length).toBeGreaterThan(0);
    expect(filesContaining(pgDir, Buffer.from(resetToken!, 'utf8'))).toEqual([]);
    expect(filesContaining(pgDir, Buffer.from(inviteToken!, 'utf8'))).toEqual([]);
  });

  test('a sealed body opens only under its own row id', () => {
    const key = createSecretKey(randomBytes(32));
    const id = randomUUID();
    const sealed = sealMailBody(key, id, 'Reset token: rst_example');
    expect(sealed.includes(Buffer.from('rst_example'))).toBe(false);
    expect(openMailBody(key, id, sealed)).toBe('Reset token: rst_example');
    expect(() => openMailBody(key, randomUUID(), sealed)).toThrow(DecryptionError);
  });
});
