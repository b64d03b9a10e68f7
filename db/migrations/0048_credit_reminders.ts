// Reminders before prepaid credits expire (issue 34 §2; reference: 30 and 7 days before): one row
// per lot and threshold once its mail is queued, so the nightly job never mails twice.
export const name = '0048_credit_reminders';
export const up = `
CREATE TABLE credit_reminders (
  lot_id uuid NOT NULL REFERENCES credit_lots(id) ON DELETE CASCADE,
  days_before integer NOT NULL CHECK (days_before IN (7, 30)),
  sent_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (lot_id, days_before)
);
`;
