// The key backend behind envelope encryption. Every vault has its own key inside the backend;
// data keys are wrapped and unwrapped by it and never stored in the clear.
//   local:  a vault key is 32 random bytes sealed by the root key (DATA_DIR/root.key or ROOT_KEY)
//   pkcs11: a vault key is a non-extractable AES-256 key created inside a PKCS#11 token (an HSM;
//           SoftHSM2 in tests); wrapping and unwrapping happen inside the token.
// Signing keys are separate from vault keys and come in two curves: secp256k1 (EVM and Bitcoin
// transactions; ECDSA over a 32-byte digest) and Ed25519 (Solana; EdDSA over the whole message).
// `local` seals the private scalar or seed with the root key; `pkcs11` generates the key pair inside
// the token, never exported. A ref says its curve (local-ec: / local-ed:, pkcs11-ec: / pkcs11-ed:),
// and a key is only ever used with its own curve's signing call.

/** Backend-specific handle of a vault key, stored on the vault row (no key material in the clear). */
export type VaultKeyRef = string;
/** Backend-specific handle of a secp256k1 or Ed25519 signing key, naming its curve (no key material in the clear). */
export type SigningKeyRef = string;

/** An ECDSA secp256k1 signature: r and s are 32 bytes big-endian, s is always low-S (≤ n/2). */
export type EcdsaSignature = { r: Buffer; s: Buffer; recovery: 0 | 1 };

export interface Kms {
  readonly backend: 'local' | 'pkcs11';
  /** Creates the key of a new vault; `vaultId` labels it inside the backend. */
  createVaultKey(vaultId: string): Promise<VaultKeyRef>;
  /** Encrypts a 32-byte data key under the vault key; `aad` binds it to where it is used. */
  wrapDataKey(ref: VaultKeyRef, dataKey: Buffer, aad: Buffer): Promise<Buffer>;
  /** Reverses wrapDataKey; throws KmsDecryptError when the blob or its `aad` does not match. */
  unwrapDataKey(ref: VaultKeyRef, wrapped: Buffer, aad: Buffer): Promise<Buffer>;
  /** Destroys a vault key (vault deletion); data wrapped under it is unrecoverable afterwards. */
  destroyVaultKey(ref: VaultKeyRef): Promise<void>;
  /** Creates a secp256k1 key pair; `publicKey` is the 65-byte uncompressed SEC1 point (0x04 | x | y). */
  createSigningKey(label: string): Promise<{ ref: SigningKeyRef; publicKey: Buffer }>;
  /**
   * Signs a 32-byte digest (already hashed, e.g. keccak256 of a transaction). `recovery` is the
   * parity that makes ecrecover(digest, r, s, recovery) return this key's public key.
   * Throws RangeError for a digest that is not 32 bytes and KmsSigningKeyError for an unknown key
   * or a ref that is not a secp256k1 key.
   */
  signDigest(ref: SigningKeyRef, digest: Buffer): Promise<EcdsaSignature>;
  /** Creates an Ed25519 key pair; `publicKey` is the 32-byte public key. */
  createEd25519Key(label: string): Promise<{ ref: SigningKeyRef; publicKey: Buffer }>;
  /** Signs `message` (any length; Ed25519 hashes internally) with an Ed25519 key: the 64-byte signature. KmsSigningKeyError for an unknown/destroyed key or a ref that is not an Ed25519 key. */
  signEd25519(ref: SigningKeyRef, message: Buffer): Promise<Buffer>;
  /** Destroys a signing key of either curve; idempotent. Later signing calls fail with KmsSigningKeyError. */
  destroySigningKey(ref: SigningKeyRef): Promise<void>;
  /**
   * The 32-byte private key of a signing key, for an owner's audited export: the secp256k1 scalar,
   * or the Ed25519 seed (RFC 8032 private key). Only `local` can:
   * `pkcs11` keys are non-extractable by construction and throw KmsKeyNotExtractableError.
   * The caller must zero the returned buffer. KmsSigningKeyError for an unknown or destroyed key.
   */
  exportSigningKey(ref: SigningKeyRef): Promise<Buffer>;
  /** True when the backend answers a real wrap/unwrap round trip. */
  health(): Promise<boolean>;
  close(): Promise<void>;
}

export class KmsDecryptError extends Error {
  constructor() { super('the wrapped key does not authenticate under this vault key and context'); }
}

export class KmsSigningKeyError extends Error {
  constructor() { super('no such signing key (unknown, destroyed or not sealed by this backend)'); }
}

/** The backend keeps its signing keys where nothing can read them out (an HSM): export is impossible. */
export class KmsKeyNotExtractableError extends Error {
  constructor() { super('this key backend never lets a signing key out'); }
}

/** Refuses a message that is not a Buffer (a string would be signed in some guessed encoding). */
export function assertMessage(message: Buffer): void {
  if (!Buffer.isBuffer(message)) throw new TypeError('the message to sign must be a Buffer');
}

/** Refuses anything but a 32-byte digest: signing a longer message would silently truncate it. */
export function assertDigest(digest: Buffer): void {
  if (!Buffer.isBuffer(digest) || digest.length !== 32) throw new RangeError('the digest to sign must be exactly 32 bytes');
}
