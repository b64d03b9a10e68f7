// Mobile devices for step-up (spec §4.3b; reference registerDevice, listDevices, revokeDevice,
// createDeviceChallenge, attestDeviceChallenge, registerPushToken). Humans only: a device stands
// for a person's phone. The step-up token the phone earns goes in X-Auth-Confirm.
import { route } from '../../route.ts';
import { deviceAttestBody, deviceChallengeBody, deviceParams, devicePushTokenBody, registerDeviceBody } from './schema.ts';
import {
  DeviceChallengeSchema, DeviceListSchema, DeviceRegisteredSchema, DeviceStepUpSchema, presentDeviceChallenge, presentDevices, presentDeviceStepUp,
} from '../../presenters/mobile-devices.ts';

export const mobileDeviceRoutes = [
  route({
    method: 'POST', path: '/v1/auth/devices', tag: 'Authentication', auth: 'user',
    summary: 'Register a mobile device and its key: `public_key_pem` (P-256, Ed25519 or RSA ≥ 2048) or `webauthn` (a platform credential over a POST /v1/auth/passkeys/register/begin challenge). X-Auth-Confirm (security.device.register) as for passkeys: once the account has a second factor, a rat_ token made with one',
    body: registerDeviceBody,
    success: { status: 201, description: 'Device registered', schema: DeviceRegisteredSchema },
    errors: {
      400: 'A key that is not accepted, an invalid WebAuthn attestation, or an unknown, used or expired registration challenge',
      401: 'X-Auth-Confirm missing or wrong, or a used, expired or unknown rat_ token',
      403: 'A password, or a rat_ token made with the password, where a second factor is needed; or a token for another purpose',
      409: 'This WebAuthn credential is already a device, or the account has 20 devices',
    },
    handler: async ({ ctx, body, action, services: s }) => {
      const r = await s.mobileDevices.register(action, {
        name: body.name, platform: body.platform, publicKeyPem: body.public_key_pem,
        webauthn: body.webauthn && { credentialId: body.webauthn.credential_id, attestationObject: body.webauthn.attestation_object, clientDataJson: body.webauthn.client_data_json, transports: [] },
        push: body.push_token === undefined ? undefined : { token: body.push_token, platform: body.push_platform ?? (body.platform === 'ios' ? 'apns' : 'fcm') },
      }, ctx.get('x-auth-confirm') || undefined);
      return { device_id: r.deviceId, attestation_verified: r.attestationVerified };
    },
  }),
  route({
    method: 'GET', path: '/v1/auth/devices', tag: 'Authentication', auth: 'user',
    summary: "The caller's mobile devices",
    success: { status: 200, description: 'Devices', schema: DeviceListSchema },
    handler: async ({ action, services: s }) => presentDevices(await s.mobileDevices.list(action)),
  }),
  route({
    method: 'DELETE', path: '/v1/auth/devices/:device_id', tag: 'Authentication', auth: 'user',
    summary: 'Revoke a device: its key and push token are gone, its open challenges with them',
    params: deviceParams,
    success: { status: 204, description: 'Device revoked' },
    errors: { 404: 'No such device of the caller' },
    handler: async ({ params, action, services: s }) => s.mobileDevices.remove(action, params.device_id),
  }),
  route({
    method: 'POST', path: '/v1/auth/devices/:device_id/challenge', tag: 'Authentication', auth: 'user',
    summary: 'A step-up challenge for this device, bound to one action and target (approval.decide: a pending approval you may decide; an account action: your user id), pushed to the device when it has a push token. Good once, for 300 s',
    params: deviceParams,
    body: deviceChallengeBody,
    success: { status: 200, description: 'Challenge created', schema: DeviceChallengeSchema },
    errors: {
      400: 'An unknown action, or a target that is not your user id for an account action',
      403: 'You may not decide this approval',
      404: 'No such device of the caller, or no such approval',
      409: 'The approval is no longer pending',
    },
    handler: async ({ params, body, action, services: s }) =>
      presentDeviceChallenge(await s.mobileDevices.challenge(action, params.device_id, body.action, body.target_id)),
  }),
  route({
    method: 'POST', path: '/v1/auth/devices/:device_id/attest', tag: 'Authentication', auth: 'user',
    summary: "Answer a challenge: `{challenge_nonce, signature}` signed with the registered PEM key, or a WebAuthn assertion (`authenticator_data`, `client_data_json`, `signature`) over the nonce by the device's platform credential. Answers a single-use rat_ token for that action and target",
    params: deviceParams,
    body: deviceAttestBody,
    success: { status: 200, description: 'Step-up token', schema: DeviceStepUpSchema },
    errors: {
      401: 'The signature does not verify, or the challenge is unknown, used, expired or another device\'s (it is spent either way)',
      404: 'No such device of the caller',
      429: 'Too many failed second-factor attempts for this account: wait Retry-After seconds',
    },
    handler: async ({ params, body, action, services: s }) => presentDeviceStepUp(await s.mobileDevices.attest(action, params.device_id,
      body.authenticator_data !== undefined
        ? { kind: 'webauthn', nonce: body.challenge_nonce, authenticatorData: body.authenticator_data, clientDataJson: body.client_data_json!, signature: body.signature }
        : { kind: 'signature', nonce: body.challenge_nonce!, signature: body.signature })),
  }),
  route({
    method: 'POST', path: '/v1/auth/devices/:device_id/push-token', tag: 'Authentication', auth: 'user',
    summary: "Set the device's push token (APNs or FCM); it is never shown back",
    params: deviceParams,
    body: devicePushTokenBody,
    success: { status: 204, description: 'Push token registered' },
    errors: { 404: 'No such device of the caller' },
    handler: async ({ params, body, action, services: s }) => s.mobileDevices.setPushToken(action, params.device_id, body.token, body.platform),
  }),
];
