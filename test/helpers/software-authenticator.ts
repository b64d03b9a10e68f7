// A software WebAuthn authenticator for tests: its own P-256 key (node:crypto), real authenticator
// data (rp id hash, UP/UV/AT flags, counter, attested credential data with a COSE key) and real
// responses: attestation `none` or `packed` self attestation (ES256 over authData ||
// SHA-256(clientDataJSON)), assertions signed over the same. CBOR is encoded here (the few types a
// WebAuthn response needs), so the server's parser is checked against an independent encoder.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** The test stack's relying party (test/helpers/global-setup.ts sets WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS). */
export const STACK_WEBAUTHN = { rpId: 'vault.test', origin: 'https://vault.test', otherOrigin: 'https://app.vault.test' };

// ---- CBOR (RFC 8949): unsigned and negative integers, byte and text strings, maps --------------

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) { const b = Buffer.alloc(3); b[0] = (major << 5) | 25; b.writeUInt16BE(n, 1); return b; }
  const b = Buffer.alloc(5); b[0] = (major << 5) | 26; b.writeUInt32BE(n, 1); return b;
}

export type Cbor = number | string | Uint8Array | Map<number | string, Cbor>;

export function cbor(v: Cbor): Buffer {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') { const s = Buffer.from(v, 'utf8'); return Buffer.concat([head(3, s.length), s]); }
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), Buffer.from(v)]);
  return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

// ---- the authenticator ---------------------------------------------------------------------------

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();
const b64u = (b: Buffer) => b.toString('base64url');

export type CeremonyOptions = {
  /** Origin written into clientDataJSON (default: the stack's). */
  origin?: string;
  /** Rp id whose hash starts the authenticator data (default: the one the server sent). */
  rpId?: string;
  /** User verified (default true). */
  uv?: boolean;
  /** clientDataJSON `type` (default: the ceremony's). */
  type?: string;
};

export class SoftwareAuthenticator {
  readonly credentialId: Buffer = randomBytes(32);
  /** The signature counter; each assertion adds 1 unless told otherwise. */
  counter = 0;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private userHandle: string | undefined;

  constructor() {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id(): string { return b64u(this.credentialId); }

  /** navigator.credentials.create(): the register/complete body for these options. */
  register(options: { challenge: string; rp_id: string; user_id?: string }, o: CeremonyOptions & { format?: 'none' | 'packed' } = {}) {
    this.userHandle = options.user_id;
    const clientData = this.clientData(o.type ?? 'webauthn.create', options.challenge, o);
    const jwk = this.publicKey.export({ format: 'jwk' });
    const coseKey = cbor(new Map<number, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
    const idLength = Buffer.alloc(2); idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16) /* AAGUID: none */, idLength, this.credentialId, coseKey]);
    const authData = Buffer.concat([this.authData(o.rpId ?? options.rp_id, FLAG_AT | this.flags(o), this.counter), attested]);
    const attStmt = o.format === 'packed'
      ? new Map<string, Cbor>([['alg', -7], ['sig', sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.privateKey)]])
      : new Map<string, Cbor>();
    const attestationObject = cbor(new Map<string, Cbor>([['fmt', o.format ?? 'none'], ['attStmt', attStmt], ['authData', authData]]));
    return { credential_id: this.id, attestation_object: b64u(attestationObject), client_data_json: b64u(clientData), transports: ['internal', 'hybrid'] };
  }

  /**
   * navigator.credentials.get(): an assertion body for these options. `counter` overrides the next
   * counter value (a clone replays an old one); `badSignature` signs other bytes.
   */
  assert(options: { challenge: string; rp_id: string }, o: CeremonyOptions & { counter?: number; badSignature?: boolean } = {}) {
    this.counter = o.counter ?? this.counter + 1;
    const clientData = this.clientData(o.type ?? 'webauthn.get', options.challenge, o);
    const authData = this.authData(o.rpId ?? options.rp_id, this.flags(o), this.counter);
    const signed = Buffer.concat([authData, sha256(clientData)]);
    if (o.badSignature) signed[0] ^= 0xff;
    return {
      credential_id: this.id, authenticator_data: b64u(authData), client_data_json: b64u(clientData),
      signature: b64u(sign('sha256', signed, this.privateKey)),
      ...(this.userHandle ? { user_handle: this.userHandle } : {}),
    };
  }

  private flags(o: CeremonyOptions): number {
    return FLAG_UP | (o.uv === false ? 0 : FLAG_UV);
  }

  private authData(rpId: string, flags: number, counter: number): Buffer {
    const c = Buffer.alloc(4); c.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), c]);
  }

  private clientData(type: string, challenge: string, o: CeremonyOptions): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: o.origin ?? STACK_WEBAUTHN.origin, crossOrigin: false }), 'utf8');
  }
}
