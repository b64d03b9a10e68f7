// Outgoing mail, queued in the transaction that caused it (migrations 0001, 0009; domain/mail).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const MailOutbox = defineEntity({
  name: 'MailOutbox',
  tableName: 'mail_outbox',
  properties: {
    id: p.uuid().primary(),
    to_address: p.text(),
    subject: p.text(),
    /** Only rows queued before 0009; new rows keep the body sealed (body_sealed). */
    body_text: p.text().nullable(),
    status: p.enum(['pending', 'sent', 'logged', 'failed']).default('pending'),
    attempts: p.integer().default(0),
    last_error: p.text().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    sent_at: p.datetime().nullable(),
    body_sealed: p.blob().nullable(),
  },
  indexes: [{ name: 'mail_outbox_pending_idx', properties: ['created_at'], where: "status = 'pending'" }],
});
export type MailOutboxRow = InferEntity<typeof MailOutbox>;
