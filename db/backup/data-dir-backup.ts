// `npm run backup`: everything a local deployment (the embedded PostgreSQL, the Temporal dev
// server, the local key) needs to start again elsewhere, from DATA_DIR, while it runs:
//   root.key           the root key (unless the service reads ROOT_KEY from its environment)
//   postgres.password  the embedded server's `postgres` password (the copy's roles keep it)
//   temporal.db        the Temporal dev server's state, by SQLite's online backup
//   postgres/          the cluster, by PostgreSQL's low-level backup API (pg-physical-backup.ts)
//   backup-manifest.json
// Temporal's snapshot is taken before PostgreSQL's, so the database is the newer of the two:
// work the database knows of and Temporal does not is started again by the worker's sweepers,
// while a workflow Temporal still runs but the database finished meets guarded transitions.
// The backup is written under a temporary name and renamed at the end: a directory with the
// final name is always complete.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { copyFileHashed, fileEntry, type ManifestEntry } from './copy-files.ts';
import { newManifest, writeManifest, type BackupManifest } from './manifest.ts';
import { backupEmbeddedPostgres } from './pg-physical-backup.ts';
import { snapshotSqlite } from './sqlite-snapshot.ts';

export type BackupOptions = {
  dataDir: string;
  dest: string;
  kmsBackend: 'local' | 'pkcs11';
  /** True when the service reads its root key from ROOT_KEY (nothing to copy from DATA_DIR). */
  rootKeyFromEnv: boolean;
  log: (m: string) => void;
};

export async function backupDataDir(o: BackupOptions): Promise<BackupManifest> {
  if (fs.existsSync(o.dest)) throw new Error(`${o.dest} already exists: name a new directory for the backup`);
  const passwordFile = path.join(o.dataDir, 'postgres.password');
  if (!fs.existsSync(passwordFile)) {
    throw new Error(`${passwordFile} is missing: DATA_DIR=${o.dataDir} holds no embedded PostgreSQL (with your own PostgreSQL, back it up with pg_dump: docs/operations.md)`);
  }
  fs.mkdirSync(path.dirname(o.dest), { recursive: true });
  const work = `${o.dest}.partial-${randomBytes(4).toString('hex')}`;
  fs.mkdirSync(work, { mode: 0o700 });
  try {
    const entries: ManifestEntry[] = [];
    const copy = async (name: string) => {
      const copied = await copyFileHashed(path.join(o.dataDir, name), path.join(work, name));
      if (!copied) throw new Error(`${path.join(o.dataDir, name)} vanished while it was copied`);
      entries.push({ path: name, type: 'file', ...copied });
    };
    if (!o.rootKeyFromEnv) {
      if (!fs.existsSync(path.join(o.dataDir, 'root.key'))) throw new Error(`${path.join(o.dataDir, 'root.key')} is missing, and ROOT_KEY is not set`);
      await copy('root.key');
    }
    await copy('postgres.password');
    const temporalDb = path.join(o.dataDir, 'temporal.db');
    let temporal: BackupManifest['temporal'] = 'absent';
    if (fs.existsSync(temporalDb)) {
      const pages = await snapshotSqlite(temporalDb, path.join(work, 'temporal.db'));
      fs.chmodSync(path.join(work, 'temporal.db'), 0o600);
      entries.push(await fileEntry(work, 'temporal.db'));
      temporal = 'included';
      o.log(`Temporal state copied (${pages} pages)`);
    }
    const password = fs.readFileSync(passwordFile, 'utf8').trim();
    const pg = await backupEmbeddedPostgres(o.dataDir, work, password, o.log);
    entries.push(...pg.entries);
    const manifest = newManifest({
      source_data_dir: o.dataDir, kms_backend: o.kmsBackend, root_key: o.rootKeyFromEnv ? 'environment' : 'included',
      temporal, postgres: pg.info, entries,
    });
    writeManifest(work, manifest);
    fs.renameSync(work, o.dest);
    return manifest;
  } catch (e) {
    fs.rmSync(work, { recursive: true, force: true });
    throw e;
  }
}
