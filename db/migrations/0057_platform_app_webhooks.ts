// A platform app's own webhook (issue 35 §1, §4; spec §6.2 rule 5): a `webhooks` row of the app's
// organization with platform_app_id set (one per app), fed by the same outbox and delivery pipeline
// as organization webhooks but given only the app's own platform events. Organization webhook
// routes never see these rows. Its secret rotates in place: the previous secret, sealed like the
// current one, keeps signing next to it until previous_secret_expires_at. The columns are generic,
// so an organization webhook could rotate the same way.
export const name = '0057_platform_app_webhooks';
export const up = `
ALTER TABLE webhooks ADD COLUMN platform_app_id uuid REFERENCES platform_apps(id) ON DELETE CASCADE;
ALTER TABLE webhooks ADD COLUMN previous_secret_sealed bytea;
ALTER TABLE webhooks ADD COLUMN previous_secret_expires_at timestamptz;
CREATE UNIQUE INDEX webhooks_platform_app_key ON webhooks (platform_app_id) WHERE platform_app_id IS NOT NULL;
`;
