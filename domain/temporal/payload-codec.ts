// Temporal history never holds plaintext: every payload (workflow and activity arguments, results,
// signals, memos, failures' details) is sealed with AES-256-GCM before it leaves the process. The
// whole Payload (metadata and data) is serialized and encrypted, so not even its encoding shows.
// Failures' messages and stack traces go into a payload too (failure-converter.ts), so they are
// sealed alike. Client and Worker use the same codec (temporalDataConverter); the codec endpoint
// (api/routes/admin/temporal-codec.ts) runs it for platform operators in the Temporal UI and CLI.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, type KeyObject } from 'node:crypto';
import path from 'node:path';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';

const ProtoPayload = proto.temporal.api.common.v1.Payload;

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const text = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('utf8') : undefined);

export class PayloadDecryptionError extends Error {}

/**
 * A short public fingerprint of the key (not the key): after a rotation it tells which key sealed
 * a payload, so the old one can be kept for decoding while the new one encodes.
 */
export function codecKeyId(key: KeyObject): string {
  return createHmac('sha256', key).update('ocv-vault/temporal-payload-codec/key-id').digest('hex').slice(0, 16);
}

export class EncryptionCodec implements PayloadCodec {
  readonly keyId: string;
  private readonly key: KeyObject;
  private readonly keyIdBytes: Buffer;

  constructor(key: KeyObject) {
    if (key.symmetricKeySize !== 32) throw new Error('the Temporal payload codec needs a 32-byte key');
    this.key = key;
    this.keyId = codecKeyId(key);
    this.keyIdBytes = utf8(this.keyId);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.seal(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => (isEncrypted(p) ? this.open(p) : p));
  }

  private seal(p: Payload): Payload {
    const plain = ProtoPayload.encode(p).finish();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    // The key id is authenticated too: a payload cannot be relabelled as another key's.
    cipher.setAAD(this.keyIdBytes);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return {
      metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: this.keyIdBytes },
      data: Buffer.concat([iv, body, cipher.getAuthTag()]),
    };
  }

  private open(p: Payload): Payload {
    const keyId = text(p.metadata?.[KEY_ID_METADATA]);
    if (keyId !== this.keyId) throw new PayloadDecryptionError(`payload sealed with another key (key id ${keyId ?? 'missing'}, this codec has ${this.keyId})`);
    const data = Buffer.from(p.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadDecryptionError('encrypted payload is too short');
    const decipher = createDecipheriv('aes-256-gcm', this.key, data.subarray(0, IV_BYTES));
    decipher.setAAD(this.keyIdBytes);
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadDecryptionError('encrypted payload failed authentication (tampered, or another key)');
    }
    const inner = ProtoPayload.decode(plain);
    return {
      metadata: { ...inner.metadata },
      // protobufjs leaves an absent bytes field as its default, a plain empty array.
      data: inner.data instanceof Uint8Array ? inner.data : new Uint8Array(inner.data ?? []),
      ...(inner.externalPayloads?.length ? { externalPayloads: inner.externalPayloads } : {}),
    };
  }
}

export const isEncrypted = (p: Payload) => text(p.metadata?.encoding) === ENCRYPTED_ENCODING;

/**
 * The module the SDK loads for failures (failure-converter.ts). The workflow bundle must be built
 * with it too (workers/worker-options.ts), or workflows' own failures would be stored in clear.
 */
export const FAILURE_CONVERTER_PATH = path.join(import.meta.dirname, 'failure-converter.ts');

/** For Client and Worker alike: `new Client({ dataConverter })`, `Worker.create({ dataConverter })`. */
export function temporalDataConverter(key: KeyObject): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(key)], failureConverterPath: FAILURE_CONVERTER_PATH };
}
