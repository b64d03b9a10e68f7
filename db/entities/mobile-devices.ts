// Mobile devices for step-up (migration 0031; domain/accounts/mobile-devices.ts): a user's phone,
// its key (a PEM public key, or a WebAuthn platform credential) and push token, and the challenges
// it answers. A challenge keeps only its nonce's HMAC digest and is deleted when answered.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './accounts.ts';

export const MobileDevice = defineEntity({
  name: 'MobileDevice',
  tableName: 'mobile_devices',
  properties: {
    id: p.uuid().primary(),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    name: p.text(),
    platform: p.enum(['ios', 'android']),
    /** SPKI PEM of a P-256, Ed25519 or RSA key; null for a WebAuthn device. */
    public_key_pem: p.text().nullable(),
    /** A WebAuthn device's credential id (base64url) and COSE public key. */
    credential_id: p.text().unique().nullable(),
    credential_public_key: p.blob().nullable(),
    sign_count: p.bigint('number').defaultRaw('0'),
    attestation_verified: p.boolean().default(false),
    push_token: p.text().nullable(),
    push_platform: p.enum(['apns', 'fcm']).nullable(),
    last_used_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'mobile_devices_user_idx', properties: ['user_id'] }],
  checks: [{
    name: 'mobile_devices_check',
    expression: '(public_key_pem IS NULL) <> (credential_id IS NULL) AND (credential_id IS NULL) = (credential_public_key IS NULL)',
  }],
});
export type MobileDeviceRow = InferEntity<typeof MobileDevice>;

/** A step-up challenge sent to one device, bound to one purpose and target, valid 5 minutes. */
export const DeviceChallenge = defineEntity({
  name: 'DeviceChallenge',
  tableName: 'device_challenges',
  properties: {
    nonce_digest: p.text().primary(),
    device_id: () => p.manyToOne(MobileDevice).mapToPk().fieldName('device_id').deleteRule('cascade'),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    purpose: p.text(),
    target_id: p.text(),
    expires_at: p.datetime(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [
    { name: 'device_challenges_device_idx', properties: ['device_id'] },
    { name: 'device_challenges_expires_idx', properties: ['expires_at'] },
  ],
});
export type DeviceChallengeRow = InferEntity<typeof DeviceChallenge>;
