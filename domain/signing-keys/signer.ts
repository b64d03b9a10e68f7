// Signing with an agent's active key: the one place that turns a stored handle back into a
// signature (the Intents API builds on it). The handle is decrypted from the reserved
// `__agent-keys` vault, handed to the KMS and dropped: it is never returned, logged or put in an
// error. The caller hashes (keccak256 of a transaction, an EIP-191 or EIP-712 message …), decides
// whether the agent may sign (Intents API flag, guardrails, approvals) and writes the audit record.
import type { EntityManager } from '@mikro-orm/postgresql';
import { secp256k1 } from '@noble/curves/secp256k1';
import { toHex } from 'viem';
import { assertDigest, KmsSigningKeyError, type Kms } from '../crypto/kms/kms.ts';
import { loadAgent } from '../agents/agent-repository.ts';
import { Problem, conflict, forbidden } from '../errors.ts';
import { resolveSigningChain } from './signing-chains.ts';
import { readHandle } from './key-handles.ts';
import { activeSigningKey, handleOf } from './key-repository.ts';

/** An Ethereum-ready signature (low-S, r and s 32 bytes big-endian) and the key that made it. */
export type AgentSignature = {
  r: Buffer; s: Buffer; recovery: 0 | 1;
  /** The signer's EIP-55 address, which ecrecover(digest, r, s, recovery) yields. */
  address: string;
  keyId: string; keyVersion: number;
};

export type SignerDeps = { db: () => EntityManager; kms: Kms };

export class AgentSigner {
  private readonly d: SignerDeps;

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
    if (agent.status !== 'active') throw forbidden('The agent is deactivated: its keys do not sign');
    const signingChain = await resolveSigningChain(em, chain);
    const key = await activeSigningKey(em, orgId, agent.id, signingChain);
    const ref = key ? await readHandle(em, this.d.kms, orgId, handleOf(key)) : null;
    if (!key || !ref) throw new Problem(404, `The agent has no active ${signingChain} signing key`);
    let sig;
    try {
      sig = await this.d.kms.signDigest(ref, digest);
    } catch (e) {
      if (e instanceof KmsSigningKeyError) throw conflict('The signing key was rotated or deactivated while signing; sign again');
      throw e;
    }
    // The KMS signs with the handle's key; make sure that is the key this record (and address) names.
    const recovered = new secp256k1.Signature(BigInt(toHex(sig.r)), BigInt(toHex(sig.s))).addRecoveryBit(sig.recovery)
      .recoverPublicKey(digest).toRawBytes(false);
    if (toHex(recovered) !== key.public_key) throw new Error('the signature does not recover to the recorded signing key');
    return { r: sig.r, s: sig.s, recovery: sig.recovery, address: key.address, keyId: key.id, keyVersion: key.key_version };
  }
}
