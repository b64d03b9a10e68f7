// Delivers one outbox row: over SMTP when SMTP_URL is set, otherwise to the log so a local user
// can follow sign-up, reset and invitation flows. The body is erased once delivered or failed.
import type { KeyObject } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../log.ts';
import { openMailBody } from './sealed-body.ts';
import { countAttempt, markDelivered, markFailed, recordDeliveryError } from './mail-repository.ts';

export type MailTransport = { send(to: string, subject: string, text: string): Promise<'sent' | 'logged'> };

export function createMailTransport(smtpUrl: string | undefined, from: string, log: Logger): MailTransport {
  if (!smtpUrl) {
    return {
      async send(to, subject, text) {
        log.info('mail (no SMTP_URL set; printed instead of sent)', { to, subject, body: text });
        return 'logged';
      },
    };
  }
  const transporter = nodemailer.createTransport(smtpUrl);
  return {
    async send(to, subject, text) {
      await transporter.sendMail({ from, to, subject, text });
      return 'sent';
    },
  };
}

export async function deliverOutboxMail(em: EntityManager, key: KeyObject, transport: MailTransport, id: string): Promise<'sent' | 'logged' | 'skipped'> {
  const row = await countAttempt(em, id);
  if (!row || row.status !== 'pending') return 'skipped';
  // body_text: rows queued in plaintext before migration 0009 sealed new ones.
  const text = row.body_sealed ? openMailBody(key, id, row.body_sealed) : row.body_text;
  if (text === null) return 'skipped';
  try {
    const outcome = await transport.send(row.to_address, row.subject, text);
    await markDelivered(em, id, outcome);
    return outcome;
  } catch (e) {
    await recordDeliveryError(em, id, String(e).slice(0, 500));
    throw e;
  }
}

export async function markMailFailed(em: EntityManager, id: string): Promise<void> {
  await markFailed(em, id);
}
