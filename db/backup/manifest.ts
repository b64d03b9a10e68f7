// The manifest of a backup (backup-manifest.json at its root): what it holds, how PostgreSQL was
// copied, and every directory and file with its size and SHA-256, which the restore checks.
import fs from 'node:fs';
import path from 'node:path';
import type { ManifestEntry } from './copy-files.ts';
import type { PgBackupInfo } from './pg-physical-backup.ts';

export const MANIFEST_FILE = 'backup-manifest.json';
const FORMAT = 'ocv-vault-backup';
const FORMAT_VERSION = 1;

export type BackupManifest = {
  format: typeof FORMAT;
  format_version: typeof FORMAT_VERSION;
  created_at: string;
  source_data_dir: string;
  /** The key backend the deployment ran with; with `pkcs11` the token's keys are NOT in here. */
  kms_backend: 'local' | 'pkcs11';
  /** `environment`: the service read ROOT_KEY, so the backup holds no root key; the operator keeps it. */
  root_key: 'included' | 'environment';
  /** Whether the Temporal dev server's state (temporal.db) is in it. */
  temporal: 'included' | 'absent';
  postgres: PgBackupInfo;
  entries: ManifestEntry[];
};

export function newManifest(fields: Omit<BackupManifest, 'format' | 'format_version' | 'created_at'>): BackupManifest {
  return { format: FORMAT, format_version: FORMAT_VERSION, created_at: new Date().toISOString(), ...fields };
}

export function writeManifest(root: string, m: BackupManifest): void {
  fs.writeFileSync(path.join(root, MANIFEST_FILE), JSON.stringify(m, null, 2) + '\n', { mode: 0o600 });
}

/** Reads and checks the manifest of the backup at `root`; the error says what is wrong. */
export function readManifest(root: string): BackupManifest {
  const file = path.join(root, MANIFEST_FILE);
  let m: BackupManifest;
  try {
    m = JSON.parse(fs.readFileSync(file, 'utf8')) as BackupManifest;
  } catch (e) {
    throw new Error(`${file} cannot be read (${(e as Error).message}): is ${root} a backup made by npm run backup?`);
  }
  if (m?.format !== FORMAT || m.format_version !== FORMAT_VERSION || !Array.isArray(m.entries)) {
    throw new Error(`${file} is not a manifest of this service's backup format ${FORMAT_VERSION}`);
  }
  for (const e of m.entries) {
    // A manifest names paths inside the backup only: no absolute paths, no way out of it.
    if (typeof e.path !== 'string' || e.path === '' || path.isAbsolute(e.path) || e.path.split('/').some((s) => s === '' || s === '.' || s === '..')) {
      throw new Error(`${file} lists an invalid path ${JSON.stringify(e.path)}`);
    }
  }
  return m;
}
