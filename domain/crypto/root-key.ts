// The local root key: from ROOT_KEY, else DATA_DIR/root.key (created 0600 on first start).
// Sub-keys for distinct purposes are derived with HKDF so one purpose never reuses another's key.
import { hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function loadOrCreateRootKey(dataDir: string, fromEnv: Buffer | undefined): Buffer {
  if (fromEnv) return fromEnv;
  const file = path.join(dataDir, 'root.key');
  fs.mkdirSync(dataDir, { recursive: true });
  // Written whole under a temporary name, then linked into place (fails if it exists): processes
  // starting together on one volume (api and worker replicas) all read the one complete key.
  if (!fs.existsSync(file)) {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    fs.writeFileSync(tmp, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}

export type KeyPurpose = 'jwt-signing-key-wrap' | 'token-pepper' | 'audit-chain' | 'mail-outbox' | 'webhook-signing-secrets'
  | 'temporal-payload-codec' | 'temporal-codec-link' | 'share-links' | 'totp-secrets';

export function deriveKey(root: Buffer, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `ocv-vault/${purpose}`, 32));
}
