// Mobile devices (reference RegisterDeviceResponse, DeviceListResponse, DeviceChallengeResponse,
// AttestDeviceChallengeResponse). Never a key, push token or counter.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways } from './registry.ts';
import type { ListedDevice } from '../../domain/accounts/mobile-device-repository.ts';
import type { DeviceChallengeIssued, DeviceStepUp } from '../../domain/accounts/mobile-devices.ts';

export const DeviceRegisteredSchema = shape('DeviceRegistered', z.object({
  device_id: uuid,
  /** True only for a WebAuthn key whose attestation statement (a format other than none) verified. */
  attestation_verified: z.boolean(),
}));

const DeviceSchema = shape('MobileDevice', z.object({
  id: uuid, name: z.string(), platform: z.enum(['ios', 'android']), attestation_verified: z.boolean(),
  last_used_at: timestamp.nullable(), created_at: timestamp,
}));
export const DeviceListSchema = shape('MobileDeviceList', z.object({ devices: z.array(DeviceSchema) }));

export const presentDevices = (rows: ListedDevice[]): z.output<typeof DeviceListSchema> => ({
  devices: rows.map((d) => ({
    id: d.id, name: d.name, platform: d.platform, attestation_verified: d.attestation_verified,
    last_used_at: d.last_used_at === null ? null : isoAlways(d.last_used_at), created_at: isoAlways(d.created_at),
  })),
});

export const DeviceChallengeSchema = shape('DeviceChallenge', z.object({
  /** What the device signs (its UTF-8 bytes), or the challenge of its WebAuthn assertion. Good once, 300 s. */
  challenge_nonce: z.string(),
  expires_at: timestamp,
  /** SHA-256 (hex) of `nonce \n action \n target_id`: what the phone shows it is approving. */
  action_bound_hash: z.string(),
  action: z.string(),
  target_id: z.string(),
}));
export const presentDeviceChallenge = (c: DeviceChallengeIssued): z.output<typeof DeviceChallengeSchema> => ({
  challenge_nonce: c.nonce, expires_at: isoAlways(c.expiresAt), action_bound_hash: c.actionBoundHash, action: c.purpose, target_id: c.targetId,
});

export const DeviceStepUpSchema = shape('DeviceStepUp', z.object({
  /** A single-use rat_ token for X-Auth-Confirm, for this action and target only. */
  step_up_token: z.string(),
  expires_at: timestamp,
  action: z.string(),
  target_id: z.string(),
  method: z.literal('device'),
}));
export const presentDeviceStepUp = (t: DeviceStepUp): z.output<typeof DeviceStepUpSchema> => ({
  step_up_token: t.token, expires_at: isoAlways(t.expiresAt), action: t.purpose, target_id: t.targetId, method: 'device',
});
