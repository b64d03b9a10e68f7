// The key backend behind envelope encryption. Every vault has its own key inside the backend;
// data keys are wrapped and unwrapped by it and never stored in the clear.
//   local:  a vault key is 32 random bytes sealed by the root key (DATA_DIR/root.key or ROOT_KEY)
//   pkcs11: a vault key is a non-extractable AES-256 key created inside a PKCS#11 token (an HSM;
//           SoftHSM2 in tests); wrapping and unwrapping happen inside the token.

/** Backend-specific handle of a vault key, stored on the vault row (no key material in the clear). */
export type VaultKeyRef = string;

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
  /** True when the backend answers a real wrap/unwrap round trip. */
  health(): Promise<boolean>;
  close(): Promise<void>;
}

export class KmsDecryptError extends Error {
  constructor() { super('the wrapped key does not authenticate under this vault key and context'); }
}
