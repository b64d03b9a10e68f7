import { createSecretKey, randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { decodeFailure, encodeErrorToFailure, loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { EncryptionCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA, PayloadDecryptionError, temporalDataConverter } from '../../domain/temporal/payload-codec.ts';
import { deriveKey } from '../../domain/crypto/root-key.ts';

const root = randomBytes(32);
const key = createSecretKey(deriveKey(root, 'temporal-payload-codec'));
const codec = new EncryptionCodec(key);
const SECRET = 'sk-live-very-secret-value-0123456789';
const json = (v: unknown): Payload => defaultPayloadConverter.toPayload(v)!;
const str = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString('utf8');

describe('Temporal payload codec', () => {
  test('round trip keeps data and every metadata entry', async () => {
    const p: Payload = { metadata: { encoding: Buffer.from('json/plain'), 'x-custom': Buffer.from([0, 1, 2, 255]) }, data: Buffer.from(JSON.stringify({ secret: SECRET })) };
    const [sealed] = await codec.encode([p]);
    expect(str(sealed!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(str(sealed!.metadata![KEY_ID_METADATA])).toBe(codec.keyId);
    expect(Object.keys(sealed!.metadata!).sort()).toEqual([KEY_ID_METADATA, 'encoding'].sort());
    const [back] = await codec.decode([sealed!]);
    expect(Buffer.from(back!.data!)).toEqual(Buffer.from(p.data!));
    expect(Object.keys(back!.metadata!).sort()).toEqual(['encoding', 'x-custom']);
    expect(Buffer.from(back!.metadata!['x-custom']!)).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(defaultPayloadConverter.fromPayload(back!)).toEqual({ secret: SECRET });
  });

  test('empty, null and binary payloads survive the round trip', async () => {
    const inputs = [json(null), json(''), defaultPayloadConverter.toPayload(new Uint8Array([9, 8, 7]))!, { metadata: {}, data: new Uint8Array() }];
    const back = await codec.decode(await codec.encode(inputs));
    expect(back.slice(0, 3).map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([null, '', new Uint8Array([9, 8, 7])]);
    expect(back[3]).toEqual({ metadata: {}, data: new Uint8Array() });
  });

  test('the sealed payload holds no plaintext byte sequence of the input', async () => {
    const [sealed] = await codec.encode([json({ token: SECRET })]);
    const bytes = Buffer.concat([Buffer.from(sealed!.data!), ...Object.values(sealed!.metadata!).map((v) => Buffer.from(v))]);
    expect(bytes.includes(Buffer.from(SECRET))).toBe(false);
    expect(bytes.includes(Buffer.from('json/plain'))).toBe(false);
    // No 8-byte window of the secret appears either.
    for (let i = 0; i + 8 <= SECRET.length; i++) expect(bytes.includes(Buffer.from(SECRET.slice(i, i + 8)))).toBe(false);
  });

  test('a tampered payload is refused', async () => {
    const [sealed] = await codec.encode([json(SECRET)]);
    const data = Buffer.from(sealed!.data!);
    for (const at of [0, 12, Math.floor(data.length / 2), data.length - 1]) {
      const flipped = Buffer.from(data);
      flipped[at] ^= 0x01;
      await expect(codec.decode([{ ...sealed!, data: flipped }])).rejects.toThrow(PayloadDecryptionError);
    }
    await expect(codec.decode([{ ...sealed!, data: data.subarray(0, 20) }])).rejects.toThrow(PayloadDecryptionError);
  });

  test('another key cannot open it, nor can a relabelled key id', async () => {
    const [sealed] = await codec.encode([json(SECRET)]);
    const other = new EncryptionCodec(createSecretKey(randomBytes(32)));
    expect(other.keyId).not.toBe(codec.keyId);
    await expect(other.decode([sealed!])).rejects.toThrow(/another key/);
    const relabelled = { ...sealed!, metadata: { ...sealed!.metadata, [KEY_ID_METADATA]: Buffer.from(other.keyId) } };
    await expect(other.decode([relabelled])).rejects.toThrow(PayloadDecryptionError);
  });

  test('payloads in other encodings pass decode untouched', async () => {
    const plain = json({ hello: 'world' });
    const raw: Payload = { metadata: { encoding: Buffer.from('binary/plain') }, data: Buffer.from('xyz') };
    const [a, b] = await codec.decode([plain, raw]);
    expect(a).toBe(plain);
    expect(b).toBe(raw);
  });

  test('two encodings of the same payload differ (random IV), both decode', async () => {
    const p = json(SECRET);
    const [[x], [y]] = await Promise.all([codec.encode([p]), codec.encode([p])]);
    expect(Buffer.from(x!.data!).equals(Buffer.from(y!.data!))).toBe(false);
    const [dx, dy] = await codec.decode([x!, y!]);
    expect(defaultPayloadConverter.fromPayload(dx!)).toBe(SECRET);
    expect(defaultPayloadConverter.fromPayload(dy!)).toBe(SECRET);
  });

  test('the data converter carries the codec; the key id is stable for a key', () => {
    const dc = temporalDataConverter(key);
    expect(dc.payloadCodecs).toHaveLength(1);
    expect(new EncryptionCodec(createSecretKey(deriveKey(root, 'temporal-payload-codec'))).keyId).toBe(codec.keyId);
    expect(codec.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(() => new EncryptionCodec(createSecretKey(randomBytes(16)))).toThrow(/32-byte/);
  });

  test('failures keep their message and stack trace in a payload the codec seals; a client with the codec reads them back', async () => {
    // Loaded as the SDK loads it in workers and clients (the module at failureConverterPath).
    const dc = loadDataConverter(temporalDataConverter(key));
    const err = ApplicationFailure.create({ message: `upstream said: ${SECRET}`, type: 'StepFailed', nonRetryable: true, cause: new Error(`because ${SECRET}`) });
    const failure = await encodeErrorToFailure(dc, err);
    expect(failure.message).toBe('Encoded failure');
    expect(failure.stackTrace).toBe('');
    expect(failure.cause?.message).toBe('Encoded failure');
    expect(str(failure.encodedAttributes?.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(JSON.stringify(failure)).includes(Buffer.from(SECRET))).toBe(false);
    const back = dc.failureConverter.failureToError(await decodeFailure(dc.payloadCodecs, failure), dc.payloadConverter);
    expect(back).toBeInstanceOf(ApplicationFailure);
    expect(back.message).toBe(`upstream said: ${SECRET}`);
    expect(back.stack).toContain(`upstream said: ${SECRET}`);
    expect((back as ApplicationFailure).type).toBe('StepFailed');
    expect((back.cause as Error).message).toBe(`because ${SECRET}`);
  });
});
