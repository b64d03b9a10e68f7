// Mail bodies carry one-time tokens (invitations, resets, e-mail change codes); in plaintext they
// stayed readable in the table's files and the WAL after delivery. New rows keep the body only
// sealed (domain/mail/sealed-body.ts: AES-256-GCM under a root-derived key, the row id as
// associated data). body_text remains for rows queued before this migration: the worker still
// delivers them and erases them as before; new rows never write it.
export const name = '0009_mail_outbox_sealed_body';

export const up = `
ALTER TABLE mail_outbox ADD COLUMN body_sealed bytea;
`;
