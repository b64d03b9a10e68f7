// `npm run restore`: a backup of `npm run backup` into a fresh DATA_DIR. Every file is checked
// against the manifest (size and SHA-256) as it is copied; any difference stops the restore and
// removes what it wrote, so a damaged backup never starts. PostgreSQL's files get the modes and,
// under root, the owner the embedded server needs (it runs as the `postgres` user there). Nothing
// starts here: `npm start` on the directory does, and PostgreSQL then replays the copied WAL
// from the checkpoint its backup_label names.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { copyFileHashed } from './copy-files.ts';
import { readManifest, type BackupManifest } from './manifest.ts';

export async function restoreDataDir(src: string, target: string, log: (m: string) => void): Promise<BackupManifest> {
  const manifest = readManifest(src);
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0) {
    throw new Error(`${target} is not empty: restore into a new directory (then point DATA_DIR at it)`);
  }
  const createdTarget = !fs.existsSync(target);
  fs.mkdirSync(target, { recursive: true });
  try {
    const owner = postgresOwner();
    // As root the server runs as `postgres`: every directory above DATA_DIR must let it through.
    fs.chmodSync(target, 0o755);
    if (owner) assertReachable(target, owner);
    let bytes = 0;
    for (const e of manifest.entries) {
      const to = path.join(target, e.path);
      if (e.type === 'dir') {
        fs.mkdirSync(to, { recursive: true, mode: 0o700 });
        continue;
      }
      fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
      const copied = await copyFileHashed(path.join(src, e.path), to);
      if (!copied) throw new Error(`${path.join(src, e.path)} is missing from the backup`);
      if (copied.size !== e.size || copied.sha256 !== e.sha256) {
        throw new Error(`${path.join(src, e.path)} does not match the backup's manifest (damaged or changed since the backup)`);
      }
      bytes += copied.size;
    }
    // As root the embedded server runs as `postgres` (db/embedded-postgres.ts): it must own its
    // cluster; PostgreSQL refuses a data directory others may read.
    const pgDir = path.join(target, 'postgres');
    if (fs.existsSync(pgDir)) {
      fs.chmodSync(pgDir, 0o700);
      if (owner) chownTree(pgDir, owner.uid, owner.gid);
    }
    log(`restored ${manifest.entries.filter((e) => e.type === 'file').length} files (${(bytes / 1e6).toFixed(1)} MB), every one matching the manifest`);
    return manifest;
  } catch (e) {
    // Nothing half-restored stays where a start could pick it up.
    if (createdTarget) fs.rmSync(target, { recursive: true, force: true });
    else for (const name of fs.readdirSync(target)) fs.rmSync(path.join(target, name), { recursive: true, force: true });
    throw e;
  }
}

/** Under root, the `postgres` user the embedded server runs as (created as the npm package does). */
function postgresOwner(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    // A fresh machine: embedded-postgres creates this user at initdb, which a restore skips.
    execFileSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

function assertReachable(dir: string, owner: { uid: number; gid: number }): void {
  try {
    execFileSync('test', ['-x', dir], { ...owner, stdio: 'ignore' });
  } catch {
    throw new Error(`the postgres user (which the embedded PostgreSQL runs as under root) cannot reach ${dir}: make the directories above it traversable (chmod o+x), or restore elsewhere`);
  }
}

function chownTree(dir: string, uid: number, gid: number): void {
  fs.chownSync(dir, uid, gid);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) chownTree(p, uid, gid);
    else fs.chownSync(p, uid, gid);
  }
}
