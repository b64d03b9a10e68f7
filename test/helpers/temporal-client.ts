// A Temporal client for integration tests that read workflows of the test stack: it carries the
// stack's payload codec (key derived from DATA_DIR/root.key, as workers/core.ts does), since
// every payload in the stack's history is encrypted.
import fs from 'node:fs';
import path from 'node:path';
import { createSecretKey, type KeyObject } from 'node:crypto';
import { Connection, Client } from '@temporalio/client';
import { deriveKey } from '../../domain/crypto/root-key.ts';
import { temporalDataConverter } from '../../domain/temporal/payload-codec.ts';

/** The stack's codec key (the stack runs without ROOT_KEY, so its root key is in DATA_DIR). */
export function stackCodecKey(dataDir = process.env.TEST_DATA_DIR!): KeyObject {
  const root = Buffer.from(fs.readFileSync(path.join(dataDir, 'root.key'), 'utf8').trim(), 'base64');
  return createSecretKey(deriveKey(root, 'temporal-payload-codec'));
}

/** `new Client(...)` on the stack's Temporal server, able to read what the stack's workers sealed. */
export async function stackTemporalClient(namespace = 'default', dataDir?: string): Promise<Client> {
  const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  return new Client({ connection, namespace, dataConverter: temporalDataConverter(stackCodecKey(dataDir)) });
}
