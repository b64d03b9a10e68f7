// Signing with an agent's active key: the one place that turns a stored handle back into a
// signature (the Intents API builds on it). The handle is decrypted from the reserved
// `__agent-keys` vault, handed to the KMS and dropped: it is never returned, logged or put in an
// error. The caller hashes (keccak256 of a transaction, an EIP-191 or EIP-712 message …), decides
// whether the agent may sign (Intents API flag, guardrails, approvals) and writes the audit record.
import type { EntityManager } from '@mikro-orm/postgresql';
import { secp256k1 } from '@noble/curves/secp256k1';
import { toHex } from 'viem';
import { assertDigest, KmsSigningKeyError, type Kms, type SigningKeyRef } from '../../crypto/kms/kms.ts';
import { loadAgent, type AgentRow } from '../../agents/agent-repository.ts';
import { Problem, forbidden } from '../../errors.ts';
import { resolveSigningChain, type SigningChain } from './signing-chains.ts';
import { readHandle } from './key-handles.ts';
import { activeSigningKey, handleOf, type SigningKeyRow } from './key-repository.ts';

/** An Ethereum-ready signature (low-S, r and s 32 bytes big-endian) and the key that made it. */
export type AgentSignature = {
  r: Buffer; s: Buffer; recovery: 0 | 1;
  /** The signer's EIP-55 address, which ecrecover(digest, r, s, recovery) yields. */
  address: string;
  keyId: string; keyVersion: number;
};

export type SignerDeps = { db: () => EntityManager; kms: Kms };

/** The agent's active key, ready to sign: its handle in the KMS and the public facts. */
export type ActiveKey = { ref: SigningKeyRef; address: string; publicKey: string; keyId: string; keyVersion: number };

/** 409: the key backend no longer holds the key (rotated or deactivated since it was looked up). */
export class SigningKeyRetired extends Problem {
  constructor() {
    super(409, 'The signing key was rotated or deactivated while signing; sign again');
  }
}

/** What signing needs of a signing_keys row (the hot read's copy carries its timestamps as text). */
type KeyFacts = Pick<SigningKeyRow, 'id' | 'address' | 'public_key' | 'key_version' | 'handle_vault_id' | 'handle_path' | 'handle_version'>;

/** Handles decrypted from `__agent-keys`, by key id (a key's handle never changes). Bounded. */
const HANDLE_CACHE_MAX = 10_000;

export class AgentSigner {
  private readonly d: SignerDeps;
  private readonly handles = new Map<string, SigningKeyRef>();
  /** Keys whose handle was seen to sign as the recorded public key. */
  private readonly verified = new Set<string>();

  constructor(deps: SignerDeps) {
    this.d = deps;
  }

  /**
   * Signs a 32-byte digest with the agent's active key for `chain` (ethereum or any EVM chain the
   * service knows: they share one key). 404 without an active key, 403 for a deactivated agent,
   * 409 when the key was retired while signing; RangeError for a digest that is not 32 bytes.
   */
  async signDigest(orgId: string, agentId: string, chain: string | number, digest: Buffer): Promise<AgentSignature> {
    assertDigest(digest);
    const em = this.d.db();
    const agent = await loadAgent(em, orgId, agentId);
    return this.signWith(await this.activeKey(agent, await resolveSigningChain(em, chain)), digest);
  }

  /**
   * The agent's active key on `signingChain` (one query, or none when the caller read the row in
   * this request: `preloaded`; the handle is decrypted once per key and kept). Whether the key is still the active one is read every time, so a key rotated or
   * deactivated elsewhere stops signing here at once. Holds no connection after it returns.
   */
  async activeKey(agent: Pick<AgentRow, 'id' | 'org_id' | 'status'>, signingChain: SigningChain, preloaded?: KeyFacts | null): Promise<ActiveKey> {
    if (agent.status !== 'active') throw forbidden('The agent is deactivated: its keys do not sign');
    const key = preloaded !== undefined ? preloaded : await activeSigningKey(this.d.db(), agent.org_id, agent.id, signingChain);
    let ref = key ? this.handles.get(key.id) : undefined;
    if (key && !ref) {
      ref = await readHandle(this.d.db(), this.d.kms, agent.org_id, handleOf(key)) ?? undefined;
      if (ref) this.remember(key.id, ref);
    }
    if (!key || !ref) throw new Problem(404, `The agent has no active ${signingChain} signing key`);
    return { ref, address: key.address, publicKey: key.public_key, keyId: key.id, keyVersion: key.key_version };
  }

  /** Signs with a key activeKey() returned: the KMS only, no database. */
  async signWith(key: ActiveKey, digest: Buffer): Promise<AgentSignature> {
    assertDigest(digest);
    let sig;
    try {
      sig = await this.d.kms.signDigest(key.ref, digest);
    } catch (e) {
      if (e instanceof KmsSigningKeyError) {
        this.handles.delete(key.keyId);
        this.verified.delete(key.keyId);
        throw new SigningKeyRetired();
      }
      throw e;
    }
    // The KMS signs with the handle's key; make sure that is the key this record (and address)
    // names. The binding of a key id to its handle never changes, so once per key and process is
    // enough (recovering costs three times the signature).
    if (!this.verified.has(key.keyId)) {
      const recovered = new secp256k1.Signature(BigInt(toHex(sig.r)), BigInt(toHex(sig.s))).addRecoveryBit(sig.recovery)
        .recoverPublicKey(digest).toRawBytes(false);
      if (toHex(recovered) !== key.publicKey) throw new Error('the signature does not recover to the recorded signing key');
      this.verified.add(key.keyId);
    }
    return { r: sig.r, s: sig.s, recovery: sig.recovery, address: key.address, keyId: key.keyId, keyVersion: key.keyVersion };
  }

  private remember(keyId: string, ref: SigningKeyRef): void {
    if (this.handles.size >= HANDLE_CACHE_MAX) {
      const oldest = this.handles.keys().next().value!;
      this.handles.delete(oldest);
      this.verified.delete(oldest);
    }
    this.handles.set(keyId, ref);
  }
}
