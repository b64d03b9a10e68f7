// Device login for command-line clients (migration 0029; domain/accounts/device-login*.ts): one row
// per device code. The codes and the e-mail are HMAC digests only.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './accounts.ts';

export const DeviceLogin = defineEntity({
  name: 'DeviceLogin',
  tableName: 'device_logins',
  properties: {
    id: p.uuid().primary(),
    /** What the CLI polls with. */
    device_code_digest: p.text().unique(),
    /** What the human types or follows (`XXXX-XXXX`, normalized before digesting). */
    user_code_digest: p.text().unique(),
    client_id: p.text(),
    /** The e-mail the code was asked for; null: any signed-in user may approve it. */
    email_digest: p.text().nullable(),
    /** `consumed`: approved and its token handed out (the status endpoint still says approved). */
    status: p.enum(['pending', 'approved', 'denied', 'consumed']).default('pending'),
    /** Who approved or denied it. */
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').nullable().deleteRule('cascade'),
    /** Seconds the CLI must wait between polls; grows by 5 on each poll that came too early. */
    interval_seconds: p.integer().default(5),
    last_polled_at: p.datetime().nullable(),
    expires_at: p.datetime(),
    decided_at: p.datetime().nullable(),
    consumed_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [
    { name: 'device_logins_expires_idx', properties: ['expires_at'] },
    { name: 'device_logins_user_idx', properties: ['user_id'] },
  ],
});
export type DeviceLoginRow = InferEntity<typeof DeviceLogin>;
