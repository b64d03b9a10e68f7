// Mobile devices for step-up (issue 28 §6; spec §4.3b; reference registerDevice … registerPushToken):
// a user registers a phone with its key — a PEM public key, or a WebAuthn platform credential made
// over a registration challenge (POST /v1/auth/passkeys/register/begin) — and later asks it for a
// step-up: a challenge bound to one purpose and target (deciding one approval; an account action,
// whose target is the user), pushed to the phone when it has a push token. The phone signs the
// nonce (or makes a WebAuthn assertion over it) and gets a single-use `rat_` token, method
// `device`, usable for that purpose and target only.
//
// Registering a device adds a factor: X-Auth-Confirm as for passkeys (factor-step-up.ts). A nonce
// is kept as an HMAC digest and taken when answered, so a wrong signature spends it too; failures
// count on the account's second-factor throttle, like wrong TOTP codes. Every change is audited,
// never a key, token or nonce.
import { createHash, randomBytes, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Logger } from '../log.ts';
import type { AttemptThrottle } from './attempt-throttle.ts';
import type { PasskeyCommands } from './passkeys.ts';
import type { PushSender } from './push-sender.ts';
import type { StepUp, ReauthPurpose } from './step-up.ts';
import { callerOf } from '../auth/principal.ts';
import { badRequest, conflict, notFound, unauthorized } from '../errors.ts';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import { mfaKey, tooManyAttempts } from './attempt-throttle.ts';
import { loadAccount } from './user-repository.ts';
import { insertReauthToken } from './reauth-repository.ts';
import { REAUTH_TOKEN_PREFIX, REAUTH_TOKEN_TTL_SECONDS } from './step-up.ts';
import { confirmFactorChange } from './factor-step-up.ts';
import { parseDevicePublicKey, verifyDeviceSignature } from './device-keys.ts';
import { challengeOf, verifyAssertion, type Attestation, type RelyingParty } from './webauthn.ts';
import {
  countDevices, deleteDevice, deviceOf, devicesOf, insertDevice, insertDeviceChallenge, recordDeviceUse, setPushToken,
  takeDeviceChallenge, type ListedDevice, type StoredDevice,
} from './mobile-device-repository.ts';

export const DEVICE_CHALLENGE_TTL_SECONDS = 300;
/** Phones one account may register: enough for a household of devices, not for a flood. */
export const MAX_DEVICES_PER_USER = 20;
const ATTEST_FAILED = 'The signature does not verify for this device, or the challenge is unknown, used or expired: ask for a new challenge';

/**
 * Whether a challenge may name `targetId` for `purpose`; throws the problem to answer otherwise.
 * approval.decide → a pending approval the caller may decide (wired to the approvals area).
 */
export type ChallengeTargets = (ctx: ActionContext, purpose: ReauthPurpose, targetId: string) => Promise<void>;

export type MobileDeviceDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  stepUp: StepUp;
  throttle: AttemptThrottle;
  pepper: KeyObject;
  rp: RelyingParty;
  passkeys: Pick<PasskeyCommands, 'verifyNewCredential'>;
  push: PushSender;
  targets: ChallengeTargets;
  log: Logger;
};

export type DeviceRegistration = {
  name: string; platform: 'ios' | 'android';
  /** Exactly one of them. */
  publicKeyPem?: string; webauthn?: Attestation;
  push?: { token: string; platform: 'apns' | 'fcm' };
};
export type DeviceChallengeIssued = { nonce: string; expiresAt: Date; actionBoundHash: string; purpose: ReauthPurpose; targetId: string };
/** A signed nonce (PEM devices), or a WebAuthn assertion whose client data names the nonce. */
export type DeviceAttestation =
  | { kind: 'signature'; nonce: string; signature: string }
  | { kind: 'webauthn'; nonce?: string; authenticatorData: string; clientDataJson: string; signature: string };
export type DeviceStepUp = { token: string; expiresAt: Date; purpose: string; targetId: string };

/** What the phone shows and can check: SHA-256 over the nonce, purpose and target, one per line (hex). */
export const actionBoundHash = (nonce: string, purpose: string, targetId: string): string =>
  createHash('sha256').update(`${nonce}\n${purpose}\n${targetId}`, 'utf8').digest('hex');

export class MobileDeviceCommands {
  private readonly d: MobileDeviceDeps;

  constructor(deps: MobileDeviceDeps) {
    this.d = deps;
  }

  async register(ctx: ActionContext, r: DeviceRegistration, confirm: string | undefined): Promise<{ deviceId: string; attestationVerified: boolean }> {
    const em = this.d.db();
    const user = await loadAccount(em, callerOf(ctx).id);
    await confirmFactorChange(this.d.stepUp, em, user, confirm, 'security.device.register');
    if ((await countDevices(em, user.id)) >= MAX_DEVICES_PER_USER) {
      throw conflict(`This account already has ${MAX_DEVICES_PER_USER} devices: remove one first (DELETE /v1/auth/devices/{id})`);
    }
    let key: { pem: string } | { credentialId: string; publicKey: Uint8Array; counter: number };
    let attested = false;
    if (r.publicKeyPem !== undefined) {
      const parsed = parseDevicePublicKey(r.publicKeyPem);
      if ('error' in parsed) throw badRequest(`public_key_pem: ${parsed.error}`);
      key = parsed;
    } else {
      const cred = await this.d.passkeys.verifyNewCredential(em, user.id, r.webauthn!);
      if (!cred) throw badRequest('webauthn: the attestation is invalid for this server (challenge, origin, rp id, user verification or key type), or its challenge is unknown, used or expired: begin again (POST /v1/auth/passkeys/register/begin)');
      key = cred;
      attested = cred.attested;
    }
    let deviceId: string;
    try {
      deviceId = await insertDevice(em, { userId: user.id, name: r.name, platform: r.platform, attestationVerified: attested, key, push: r.push ?? null });
    } catch (e) {
      if (e instanceof UniqueConstraintViolationException) throw conflict('This credential is already registered as a device');
      throw e;
    }
    await this.d.audit.record(ctx, 'device.registered', {
      resourceType: 'mobile_device', resourceId: deviceId, details: { device_id: deviceId, platform: r.platform, key: 'pem' in key ? 'pem' : 'webauthn' },
    });
    return { deviceId, attestationVerified: attested };
  }

  list(ctx: ActionContext): Promise<ListedDevice[]> {
    return devicesOf(this.d.db(), callerOf(ctx).id);
  }

  /** Revoking a device takes away a factor, never adds one: the bearer alone may do it (a lost phone). */
  async remove(ctx: ActionContext, deviceId: string): Promise<void> {
    if (!(await deleteDevice(this.d.db(), callerOf(ctx).id, deviceId))) throw notFound('Device');
    await this.d.audit.record(ctx, 'device.revoked', { resourceType: 'mobile_device', resourceId: deviceId, details: { device_id: deviceId } });
  }

  async setPushToken(ctx: ActionContext, deviceId: string, token: string, platform: 'apns' | 'fcm'): Promise<void> {
    if (!(await setPushToken(this.d.db(), callerOf(ctx).id, deviceId, token, platform))) throw notFound('Device');
    await this.d.audit.record(ctx, 'device.push_token_set', { resourceType: 'mobile_device', resourceId: deviceId, details: { device_id: deviceId, platform } });
  }

  /** A step-up challenge for one purpose and target, pushed to the device when it has a push token. */
  async challenge(ctx: ActionContext, deviceId: string, purpose: ReauthPurpose, targetId: string): Promise<DeviceChallengeIssued> {
    const em = this.d.db();
    const userId = callerOf(ctx).id;
    const device = await deviceOf(em, userId, deviceId);
    if (!device) throw notFound('Device');
    if (purpose === 'approval.decide') await this.d.targets(ctx, purpose, targetId);
    else if (targetId !== userId) throw badRequest(`target_id: for ${purpose} it is your own user id`);
    const nonce = randomBytes(32).toString('base64url');
    const expiresAt = await em.transactional((tx) => insertDeviceChallenge(tx, {
      digest: this.nonceDigest(nonce), deviceId, userId, purpose, targetId, ttlSeconds: DEVICE_CHALLENGE_TTL_SECONDS,
    }));
    const hash = actionBoundHash(nonce, purpose, targetId);
    await this.push(device, { nonce, purpose, targetId, hash, expiresAt });
    await this.d.audit.record(ctx, 'device.challenge_created', {
      resourceType: 'mobile_device', resourceId: deviceId, details: { device_id: deviceId, purpose, target_id: targetId },
    });
    return { nonce, expiresAt, actionBoundHash: hash, purpose, targetId };
  }

  /** Checks the device's answer to a challenge and mints the `rat_` token for its purpose and target. */
  async attest(ctx: ActionContext, deviceId: string, a: DeviceAttestation): Promise<DeviceStepUp> {
    const em = this.d.db();
    const userId = callerOf(ctx).id;
    const key = mfaKey(userId);
    const waiting = await this.d.throttle.waitFor(em, key);
    if (waiting > 0) throw tooManyAttempts(waiting);
    const device = await deviceOf(em, userId, deviceId);
    if (!device) throw notFound('Device');
    const outcome = await this.check(em, device, a);
    if (outcome.kind !== 'ok') {
      if (outcome.kind === 'cloned') {
        await this.d.audit.record(ctx, 'device.counter_regressed', { resourceType: 'mobile_device', resourceId: deviceId, details: { device_id: deviceId, method: 'device' } });
      }
      const wait = await this.d.throttle.failed(em, key);
      throw wait > 0 ? tooManyAttempts(wait) : unauthorized(ATTEST_FAILED);
    }
    const wait = await this.d.throttle.succeeded(em, key);
    if (wait > 0) throw tooManyAttempts(wait);
    const token = newOpaqueToken(REAUTH_TOKEN_PREFIX);
    const { purpose, target_id: targetId } = outcome.challenge;
    await em.transactional((tx) => insertReauthToken(tx, {
      digest: digestToken(this.d.pepper, token), userId, purpose, method: 'device', targetId, ttlSeconds: REAUTH_TOKEN_TTL_SECONDS,
    }));
    await this.d.audit.record(ctx, 'auth.reauth', {
      resourceType: 'user', resourceId: userId, details: { purpose, method: 'device', device_id: deviceId, target_id: targetId },
    });
    return { token, expiresAt: new Date(Date.now() + REAUTH_TOKEN_TTL_SECONDS * 1000), purpose, targetId };
  }

  /** Takes the challenge first (so a wrong answer spends it), then checks the answer against the device's key. */
  private async check(em: EntityManager, device: StoredDevice, a: DeviceAttestation): Promise<
    { kind: 'ok'; challenge: { purpose: string; target_id: string } } | { kind: 'bad' } | { kind: 'cloned' }
  > {
    const nonce = a.kind === 'signature' ? a.nonce : challengeOf(a.clientDataJson);
    if (nonce === undefined || (a.kind === 'webauthn' && a.nonce !== undefined && a.nonce !== nonce)) return { kind: 'bad' };
    const challenge = await takeDeviceChallenge(em, this.nonceDigest(nonce), device.id, device.user_id);
    if (!challenge) return { kind: 'bad' };
    if (device.public_key_pem !== null) {
      if (a.kind !== 'signature' || !verifyDeviceSignature(device.public_key_pem, nonce, a.signature)) return { kind: 'bad' };
      await recordDeviceUse(em, device.id, null);
      return { kind: 'ok', challenge };
    }
    if (a.kind !== 'webauthn') return { kind: 'bad' };
    const counter = await verifyAssertion(this.d.rp, nonce, {
      credentialId: device.credential_id!, authenticatorData: a.authenticatorData, clientDataJson: a.clientDataJson, signature: a.signature,
    }, { publicKey: device.credential_public_key!, transports: [] });
    if (counter === undefined) return { kind: 'bad' };
    if (!(await recordDeviceUse(em, device.id, counter))) return { kind: 'cloned' };
    return { kind: 'ok', challenge };
  }

  /** A push the phone answers; a provider failure is logged and the challenge still stands (the app can fetch it). */
  private async push(device: StoredDevice, c: { nonce: string; purpose: string; targetId: string; hash: string; expiresAt: Date }): Promise<void> {
    if (!device.push_token || !device.push_platform) return;
    try {
      await this.d.push.send({ deviceId: device.id, platform: device.push_platform, token: device.push_token }, {
        kind: 'step_up_challenge', title: 'Confirm on this device', body: c.purpose === 'approval.decide' ? 'An approval is waiting for your decision' : `Confirm ${c.purpose}`,
        data: { device_id: device.id, challenge_nonce: c.nonce, purpose: c.purpose, target_id: c.targetId, action_bound_hash: c.hash, expires_at: c.expiresAt.toISOString() },
      });
    } catch (e) {
      this.d.log.warn('push.failed', { device_id: device.id, error: (e as Error).message });
    }
  }

  private nonceDigest(nonce: string): string {
    return digestToken(this.d.pepper, `device-challenge:${nonce}`);
  }
}
