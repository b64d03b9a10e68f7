// WebAuthn checks (issue 28 §3; reference facts §4.3) over @simplewebauthn/server: what the
// authenticator signed is checked against the challenge, one of WEBAUTHN_ORIGINS, the rp id's hash,
// the user-presence and user-verification flags and, for sign-ins, the stored public key. Only
// ES256 (P-256) keys are accepted. Binary fields come base64url-encoded. The signature counter is
// not checked here but by one conditional UPDATE (passkey-repository.ts advanceCounter), so two
// parallel uses of one signature cannot both pass.
import { randomBytes } from 'node:crypto';
import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';

/** COSE algorithm -7: ECDSA P-256 with SHA-256, the only one this server verifies. */
export const ES256 = -7;

export type RelyingParty = { rpId: string; origins: string[] };

/** A fresh challenge: 32 random bytes, base64url. */
export const newChallenge = (): string => randomBytes(32).toString('base64url');

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * The challenge a client data JSON answers (to find the stored one), or undefined when the field is
 * not base64url JSON with a string `challenge`. Nothing else in it is trusted until verified.
 */
export function challengeOf(clientDataJson: string): string | undefined {
  if (!BASE64URL.test(clientDataJson)) return undefined;
  try {
    const c = JSON.parse(Buffer.from(clientDataJson, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof c.challenge === 'string' && c.challenge.length > 0 && c.challenge.length <= 512 ? c.challenge : undefined;
  } catch {
    return undefined;
  }
}

export type Attestation = { credentialId: string; attestationObject: string; clientDataJson: string; transports: string[] };
/** `attested`: the response carried an attestation statement (format other than `none`) and it verified. */
export type VerifiedCredential = { credentialId: string; publicKey: Uint8Array; counter: number; attested: boolean };

/** A new credential's attestation, or undefined when any check fails (the library's reason is not shown to clients). */
export async function verifyAttestation(rp: RelyingParty, challenge: string, a: Attestation): Promise<VerifiedCredential | undefined> {
  try {
    const r = await verifyRegistrationResponse({
      response: {
        id: a.credentialId, rawId: a.credentialId, type: 'public-key', clientExtensionResults: {},
        response: { clientDataJSON: a.clientDataJson, attestationObject: a.attestationObject },
      },
      expectedChallenge: challenge, expectedOrigin: rp.origins, expectedRPID: rp.rpId,
      requireUserVerification: true, supportedAlgorithmIDs: [ES256],
    });
    if (!r.verified || !r.registrationInfo) return undefined;
    const c = r.registrationInfo.credential;
    // The credential id the client names must be the one the authenticator attested.
    if (c.id !== a.credentialId) return undefined;
    return { credentialId: c.id, publicKey: c.publicKey, counter: c.counter, attested: r.registrationInfo.fmt !== 'none' };
  } catch {
    return undefined;
  }
}

export type Assertion = { credentialId: string; authenticatorData: string; clientDataJson: string; signature: string; userHandle?: string };

/** The signature counter of a valid assertion by this key, or undefined when any check fails. */
export async function verifyAssertion(
  rp: RelyingParty, challenge: string, a: Assertion, key: { publicKey: Uint8Array; transports: string[] },
): Promise<number | undefined> {
  try {
    const r = await verifyAuthenticationResponse({
      response: {
        id: a.credentialId, rawId: a.credentialId, type: 'public-key', clientExtensionResults: {},
        response: { clientDataJSON: a.clientDataJson, authenticatorData: a.authenticatorData, signature: a.signature, userHandle: a.userHandle },
      },
      expectedChallenge: challenge, expectedOrigin: rp.origins, expectedRPID: rp.rpId, requireUserVerification: true,
      // Counter 0: the library's own counter check is skipped; advanceCounter does it atomically.
      credential: { id: a.credentialId, publicKey: key.publicKey as Uint8Array<ArrayBuffer>, counter: 0, transports: key.transports as never },
    });
    return r.verified ? r.authenticationInfo.newCounter : undefined;
  } catch {
    return undefined;
  }
}
