// The `pkcs11` key backend: every vault key is a non-extractable AES-256 key inside a PKCS#11 token
// (an HSM; SoftHSM2 in tests). Data keys are wrapped with AES-GCM by the token itself, so vault key
// material never enters this process. Wrapped format: 0x01 | iv(12) | ciphertext | tag(16).
// pkcs11js calls are synchronous and Node runs them on one thread, so one session serves all calls;
// an Init/Encrypt pair never has an await between them, so operations cannot interleave.
// Signing keys (key pairs generated inside the token) live in pkcs11-ec.ts (secp256k1) and
// pkcs11-ed25519.ts (Ed25519); their refs say which.
import { randomBytes } from 'node:crypto';
import pkcs11js from 'pkcs11js';
import { KmsDecryptError, KmsKeyNotExtractableError, KmsSigningKeyError, type Kms, type VaultKeyRef } from './kms.ts';
import { openEcSigning } from './pkcs11-ec.ts';
import { isPkcs11Ed25519Ref, openEd25519Signing } from './pkcs11-ed25519.ts';

type Pkcs11 = InstanceType<typeof pkcs11js.PKCS11>;
type Handle = Buffer;

const VERSION = 0x01;
const PREFIX = 'pkcs11:';
const REF_RE = /^pkcs11:([0-9a-f]{32})$/;
const HEALTH_LABEL = 'vault-kms-health';
// Codes after which the session (or the login on it) is gone: reopen once and retry.
const SESSION_LOST = new Set([
  pkcs11js.CKR_SESSION_HANDLE_INVALID, pkcs11js.CKR_SESSION_CLOSED, pkcs11js.CKR_DEVICE_REMOVED,
  pkcs11js.CKR_TOKEN_NOT_PRESENT, pkcs11js.CKR_USER_NOT_LOGGED_IN,
]);

/** The token failed for a reason other than a blob that does not authenticate (e.g. it is down). */
export class Pkcs11KmsError extends Error {}

const ckr = (e: unknown): string => /CKR_\w+/.exec(String((e as Error)?.message))?.[0] ?? 'native error';
// pkcs11js leaves some errors (e.g. from C_FindObjects) unwrapped: read the code from the text then.
const code = (e: unknown): number =>
  (e as { code?: number })?.code || Number(/CKR_\w+:(\d+)/.exec(String((e as Error)?.message))?.[1] ?? 0);

// Modules initialized by this process (path → open Kms count): C_Initialize/C_Finalize are
// process-wide, so a second Kms on the same module must neither re-initialize nor finalize early.
const initialized = new Map<string, number>();

export async function openPkcs11Kms(opts: { modulePath: string; tokenLabel: string; pin: string }): Promise<Kms> {
  const mod: Pkcs11 = new pkcs11js.PKCS11();
  try {
    mod.load(opts.modulePath);
  } catch (e) {
    throw new Pkcs11KmsError(`cannot load the PKCS#11 module "${opts.modulePath}" (${(e as Error).message}): set PKCS11_MODULE to the token's PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so`);
  }
  const release = () => {
    const n = (initialized.get(opts.modulePath) ?? 1) - 1;
    if (n > 0) initialized.set(opts.modulePath, n);
    else { initialized.delete(opts.modulePath); try { mod.C_Finalize(); } catch { /* already finalized */ } }
    try { mod.close(); } catch { /* unloaded */ }
  };
  try {
    if (!initialized.has(opts.modulePath)) {
      try { mod.C_Initialize(); } catch (e) {
        if (code(e) !== pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED) {
          throw new Pkcs11KmsError(`the PKCS#11 module "${opts.modulePath}" failed to initialize (${ckr(e)}): check PKCS11_MODULE (for SoftHSM2 also SOFTHSM2_CONF)`);
        }
      }
    }
    initialized.set(opts.modulePath, (initialized.get(opts.modulePath) ?? 0) + 1);
  } catch (e) { try { mod.close(); } catch { /* unloaded */ } throw e; }

  let session: Handle;
  const openSession = (): Handle => {
    const labels: string[] = [];
    const slot = mod.C_GetSlotList(true).find((s) => {
      const label = mod.C_GetTokenInfo(s).label.trim();
      labels.push(label);
      return label === opts.tokenLabel;
    });
    if (!slot) {
      throw new Pkcs11KmsError(`no PKCS#11 token labelled "${opts.tokenLabel}" (tokens: ${labels.map((l) => `"${l}"`).join(', ') || 'none'}): set PKCS11_TOKEN_LABEL`);
    }
    const s = mod.C_OpenSession(slot, pkcs11js.CKF_RW_SESSION | pkcs11js.CKF_SERIAL_SESSION);
    try {
      mod.C_Login(s, pkcs11js.CKU_USER, opts.pin);
    } catch (e) {
      // Login state is per application: another open session may already be logged in.
      if (code(e) !== pkcs11js.CKR_USER_ALREADY_LOGGED_IN) {
        try { mod.C_CloseSession(s); } catch { /* gone */ }
        const why = code(e) === pkcs11js.CKR_PIN_LOCKED ? 'the user PIN is locked' : 'the token refused the PIN';
        throw new Pkcs11KmsError(`PKCS#11 login to token "${opts.tokenLabel}" failed: ${why} (${ckr(e)}): check PKCS11_PIN`);
      }
    }
    return s;
  };
  try { session = openSession(); } catch (e) { release(); throw e; }

  const handles = new Map<VaultKeyRef, Handle>();
  let healthKey: Handle | null = null;
  let closed = false;

  const reopen = () => {
    try { mod.C_CloseSession(session); } catch { /* already gone */ }
    handles.clear(); // handles may not survive a device reset
    ec.forget();
    ed.forget();
    healthKey = null;
    session = openSession();
  };
  // Runs fn on the session; if the session was lost, reopens once and retries.
  const run = <T>(fn: (s: Handle) => T): T => {
    try { return fn(session); } catch (e) {
      if (!SESSION_LOST.has(code(e))) throw e;
      reopen();
      return fn(session);
    }
  };

  const findKeys = (s: Handle, template: { type: number; value: Buffer | string }[]): Handle[] => {
    mod.C_FindObjectsInit(s, [{ type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY }, ...template]);
    try { return mod.C_FindObjects(s, 16); } finally { mod.C_FindObjectsFinal(s); }
  };
  const findKey = (s: Handle, template: { type: number; value: Buffer | string }[]): Handle | null => findKeys(s, template)[0] ?? null;
  const generateKey = (s: Handle, label: string, id: Buffer): Handle => mod.C_GenerateKey(s, { mechanism: pkcs11js.CKM_AES_KEY_GEN }, [
    { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
    { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_AES },
    { type: pkcs11js.CKA_VALUE_LEN, value: 32 },
    { type: pkcs11js.CKA_TOKEN, value: true },
    { type: pkcs11js.CKA_PRIVATE, value: true },
    { type: pkcs11js.CKA_SENSITIVE, value: true },
    { type: pkcs11js.CKA_EXTRACTABLE, value: false },
    { type: pkcs11js.CKA_ENCRYPT, value: true },
    { type: pkcs11js.CKA_DECRYPT, value: true },
    { type: pkcs11js.CKA_LABEL, value: label },
    { type: pkcs11js.CKA_ID, value: id },
  ]);
  const idOf = (ref: VaultKeyRef): Buffer | null => {
    const m = REF_RE.exec(ref);
    return m ? Buffer.from(m[1]!, 'hex') : null;
  };
  const keyFor = (s: Handle, ref: VaultKeyRef): Handle | null => {
    const cached = handles.get(ref);
    if (cached) return cached;
    const id = idOf(ref);
    const h = id && findKey(s, [{ type: pkcs11js.CKA_ID, value: id }]);
    if (h) handles.set(ref, h);
    return h;
  };
  // ivBits is part of the v2.40+ CK_GCM_PARAMS struct (CK_PARAMS_GCM), which SoftHSM2 2.6 expects.
  const gcm = (iv: Buffer, aad: Buffer) => ({
    mechanism: pkcs11js.CKM_AES_GCM,
    parameter: { type: pkcs11js.CK_PARAMS_GCM, iv, ivBits: 96, aad, tagBits: 128 },
  });
  const encrypt = (s: Handle, key: Handle, data: Buffer, aad: Buffer): Buffer => {
    const iv = randomBytes(12);
    mod.C_EncryptInit(s, gcm(iv, aad), key);
    const body = mod.C_Encrypt(s, data, Buffer.alloc(data.length + 32));
    return Buffer.concat([Buffer.from([VERSION]), iv, body]);
  };
  // Throws KmsDecryptError for anything wrong with the blob, aad or key (SoftHSM2 reports a failed
  // tag as CKR_GENERAL_ERROR), but lets session loss through so run() can retry.
  const decrypt = (s: Handle, key: Handle | null, wrapped: Buffer, aad: Buffer): Buffer => {
    if (!key || wrapped.length < 29 || wrapped[0] !== VERSION) throw new KmsDecryptError();
    try {
      mod.C_DecryptInit(s, gcm(wrapped.subarray(1, 13), aad), key);
      return Buffer.from(mod.C_Decrypt(s, wrapped.subarray(13), Buffer.alloc(wrapped.length)));
    } catch (e) {
      if (SESSION_LOST.has(code(e))) throw e;
      throw new KmsDecryptError();
    }
  };
  // Other token failures surface as Pkcs11KmsError with the CKR_ name only.
  const guard = <T>(what: string, fn: () => T): T => {
    try { return fn(); } catch (e) {
      if (e instanceof KmsDecryptError || e instanceof KmsSigningKeyError || e instanceof Pkcs11KmsError) throw e;
      throw new Pkcs11KmsError(`PKCS#11 ${what} failed (${ckr(e)})`);
    }
  };

  // Signing keys: same session, retry and error rules (see pkcs11-ec.ts and pkcs11-ed25519.ts).
  const ec = openEcSigning({ mod, run, guard, code });
  const ed = openEd25519Signing({ mod, run, guard, code });

  return {
    backend: 'pkcs11',
    async createVaultKey(vaultId) {
      const id = randomBytes(16);
      const ref = PREFIX + id.toString('hex');
      handles.set(ref, guard('key generation', () => run((s) => generateKey(s, `vault:${vaultId}`, id))));
      return ref;
    },
    async wrapDataKey(ref, dataKey, aad) {
      return guard('wrap', () => run((s) => {
        const key = keyFor(s, ref);
        if (!key) throw new Pkcs11KmsError(`no vault key ${ref} in the PKCS#11 token`);
        return encrypt(s, key, dataKey, aad);
      }));
    },
    async unwrapDataKey(ref, wrapped, aad) {
      return guard('unwrap', () => run((s) => decrypt(s, keyFor(s, ref), wrapped, aad)));
    },
    async destroyVaultKey(ref) {
      handles.delete(ref);
      const id = idOf(ref);
      if (!id) return;
      // Search afresh rather than trust a cached handle; nothing found means already destroyed.
      guard('key destruction', () => run((s) => {
        for (const h of findKeys(s, [{ type: pkcs11js.CKA_ID, value: id }])) mod.C_DestroyObject(s, h);
      }));
    },
    createSigningKey: ec.createSigningKey,
    signDigest: ec.signDigest,
    createEd25519Key: ed.createEd25519Key,
    signEd25519: ed.signEd25519,
    async destroySigningKey(ref) {
      return isPkcs11Ed25519Ref(ref) ? ed.destroySigningKey(ref) : ec.destroySigningKey(ref);
    },
    // Generated CKA_SENSITIVE and not CKA_EXTRACTABLE: the token itself refuses, so we do not ask it.
    async exportSigningKey() {
      throw new KmsKeyNotExtractableError();
    },
    async health() {
      try {
        const probe = randomBytes(32);
        const aad = Buffer.from(HEALTH_LABEL);
        return run((s) => {
          healthKey ??= findKey(s, [{ type: pkcs11js.CKA_LABEL, value: HEALTH_LABEL }])
            ?? generateKey(s, HEALTH_LABEL, randomBytes(16));
          return decrypt(s, healthKey, encrypt(s, healthKey, probe, aad), aad).equals(probe);
        });
      } catch {
        healthKey = null; // find it again next time
        return false;
      }
    },
    async close() {
      if (closed) return; // a second release would finalize under another Kms
      closed = true;
      handles.clear();
      ec.forget();
      ed.forget();
      // Login is per application: log out only when no other Kms here uses the module.
      if ((initialized.get(opts.modulePath) ?? 0) <= 1) try { mod.C_Logout(session); } catch { /* not logged in */ }
      try { mod.C_CloseSession(session); } catch { /* gone */ }
      release();
    },
  };
}
