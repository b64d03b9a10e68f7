// An agent's key of a non-EVM family as the families' PayloadSigner (chain-family.ts): the stored
// handle is read from `__agent-keys`, handed to the KMS and dropped. Bitcoin keys are secp256k1 (a
// 32-byte digest in, compact r‖s low-S out); Solana keys are Ed25519 (the message in, the
// signature out). The first signature of each key in this process is verified against the
// record's public key, so a handle that names another key can never sign for this record.
import type { EntityManager } from '@mikro-orm/postgresql';
import { secp256k1 } from '@noble/curves/secp256k1';
import { ed25519 } from '@noble/curves/ed25519';
import { KmsSigningKeyError, type Kms, type SigningKeyRef } from '../../crypto/kms/kms.ts';
import { Problem, forbidden } from '../../errors.ts';
import type { AgentRow } from '../../agents/agent-repository.ts';
import { SigningKeyRetired } from '../signing-keys/signer.ts';
import { readHandle } from '../signing-keys/key-handles.ts';
import { activeSigningKey, handleOf, type SigningKeyRow } from '../signing-keys/key-repository.ts';
import type { FamilySender, PayloadSigner } from './chain-family.ts';
import type { SignedFamily } from './family-chains.ts';

/** What signing needs of a signing_keys row (a fresh read, or the hot path's cached one). */
export type FamilyKeyFacts = Pick<SigningKeyRow, 'id' | 'curve' | 'public_key' | 'address' | 'handle_vault_id' | 'handle_path' | 'handle_version'>;

/** The agent's active key of a family, ready to sign. */
export type FamilyKey = { row: FamilyKeyFacts; sender: FamilySender; sign: PayloadSigner };

const hexBytes = (h: string) => Buffer.from(h.slice(2), 'hex');
/** Bounded, as AgentSigner's. */
const HANDLE_CACHE_MAX = 10_000;

export class FamilySigner {
  private readonly d: { db: () => EntityManager; kms: Kms };
  private readonly verified = new Set<string>();
  /** Handles decrypted from `__agent-keys`, by key id (a key's handle never changes; whether the key is still active is read every time). */
  private readonly handles = new Map<string, SigningKeyRef>();
  private readonly senderKeys = new Map<string, { hex: string; key: Buffer }>();

  constructor(deps: { db: () => EntityManager; kms: Kms }) {
    this.d = deps;
  }

  /**
   * 404 without an active key of the family, 403 for a deactivated agent. `preloaded`: the row the
   * caller read in this request (the hot path's one read), else it is read here.
   */
  async activeKey(agent: Pick<AgentRow, 'id' | 'org_id' | 'status'>, family: SignedFamily, preloaded?: FamilyKeyFacts | null): Promise<FamilyKey> {
    if (agent.status !== 'active') throw forbidden('The agent is deactivated: its keys do not sign');
    const em = this.d.db();
    const row = preloaded !== undefined ? preloaded : await activeSigningKey(em, agent.org_id, agent.id, family);
    const ref = row ? this.handles.get(row.id) ?? await this.readHandle(em, agent.org_id, row) : null;
    if (!row || !ref) throw new Problem(404, `The agent has no active ${family} signing key: an owner or admin creates one with POST /v1/agents/{agent_id}/signing-keys {"chain":"${family}"}`);
    const publicKey = this.senderKeyOf(row);
    const sign: PayloadSigner = async (payload) => (await this.signWith(row, ref, Buffer.from(payload))).signature;
    if (row.curve !== 'ed25519') {
      sign.recoverable = async (digest) => {
        const { signature, recovery } = await this.signWith(row, ref, Buffer.from(digest));
        return { signature, recovery: recovery! };
      };
    }
    return { row, sender: { publicKey, address: row.address }, sign };
  }

  /** The sender's public key as the family takes it (secp256k1: compressed), kept per key: a point decompression per request costs. */
  private senderKeyOf(row: FamilyKeyFacts): Buffer {
    const kept = this.senderKeys.get(row.id);
    if (kept && kept.hex === row.public_key) return kept.key;
    const pub = hexBytes(row.public_key);
    const key = row.curve === 'ed25519' ? pub : Buffer.from(secp256k1.ProjectivePoint.fromHex(pub).toRawBytes(true));
    if (this.senderKeys.size >= HANDLE_CACHE_MAX) this.senderKeys.delete(this.senderKeys.keys().next().value!);
    this.senderKeys.set(row.id, { hex: row.public_key, key });
    return key;
  }

  private async readHandle(em: EntityManager, orgId: string, row: FamilyKeyFacts): Promise<SigningKeyRef | null> {
    const ref = await readHandle(em, this.d.kms, orgId, handleOf(row));
    if (ref) {
      if (this.handles.size >= HANDLE_CACHE_MAX) this.handles.delete(this.handles.keys().next().value!);
      this.handles.set(row.id, ref);
    }
    return ref;
  }

  /** The signature (secp256k1: r‖s, with the KMS's recovery id). */
  private async signWith(row: FamilyKeyFacts, ref: SigningKeyRef, payload: Buffer): Promise<{ signature: Uint8Array; recovery: 0 | 1 | null }> {
    let sig: Buffer;
    let recovery: 0 | 1 | null = null;
    try {
      if (row.curve === 'ed25519') {
        sig = await this.d.kms.signEd25519(ref, payload);
      } else {
        const s = await this.d.kms.signDigest(ref, payload);
        sig = Buffer.concat([s.r, s.s]);
        recovery = s.recovery;
      }
    } catch (e) {
      if (e instanceof KmsSigningKeyError) {
        this.handles.delete(row.id);
        throw new SigningKeyRetired();
      }
      throw e;
    }
    if (!this.verified.has(row.id)) {
      const pub = hexBytes(row.public_key);
      const ok = row.curve === 'ed25519' ? ed25519.verify(sig, payload, pub)
        // Low-S, and the record's key recovered from (signature, recovery id): both are right.
        : lowSRecovers(sig, recovery!, payload, pub);
      if (!ok) throw new Error('the signature does not verify under the recorded signing key');
      this.verified.add(row.id);
    }
    return { signature: sig, recovery };
  }
}

function lowSRecovers(sig: Uint8Array, recovery: 0 | 1, digest: Uint8Array, publicKey: Uint8Array): boolean {
  const signature = secp256k1.Signature.fromCompact(sig);
  return !signature.hasHighS() && signature.addRecoveryBit(recovery).recoverPublicKey(digest).equals(secp256k1.ProjectivePoint.fromHex(publicKey));
}
