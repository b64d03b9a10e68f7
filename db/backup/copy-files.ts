// Copying files into and out of a backup, each with its SHA-256, so a restore can tell a backup
// that was damaged or edited on its way (a disk, a tape, an upload) from a good one before
// anything starts on it. Files of a running PostgreSQL may change or vanish while they are read:
// a file that vanished is left out (PostgreSQL dropped it; WAL replay needs no copy of it), one
// that changed is copied as read (WAL replay repairs torn pages), as pg_basebackup does.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

/** One entry of a backup's manifest: a directory, or a file with its size and SHA-256 (hex). */
export type ManifestEntry = { path: string; type: 'dir' } | { path: string; type: 'file'; size: number; sha256: string };

const isMissing = (e: unknown) => (e as NodeJS.ErrnoException)?.code === 'ENOENT';

/** Copies one file (mode 0600), hashing what it writes; null when the source vanished first. */
export async function copyFileHashed(from: string, to: string): Promise<{ size: number; sha256: string } | null> {
  let input: fs.ReadStream;
  try {
    const fd = await fs.promises.open(from, 'r');
    input = fd.createReadStream();
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) { hash.update(chunk); size += chunk.length; done(null, chunk); },
  });
  await pipeline(input, tap, fs.createWriteStream(to, { mode: 0o600 }));
  return { size, sha256: hash.digest('hex') };
}

/** What to do with a path (relative to the tree's root, `/`-separated) while copying a tree. */
export type CopyRule = (rel: string, isDir: boolean) => 'copy' | 'skip' | 'empty';

/**
 * Copies the tree under `from` into `to` (created 0700), returning manifest entries whose paths
 * are `prefix` + the relative path. `rule` may skip a path, or keep a directory but not its contents.
 */
export async function copyTree(from: string, to: string, prefix: string, rule: CopyRule): Promise<ManifestEntry[]> {
  const out: ManifestEntry[] = [];
  const walk = async (rel: string): Promise<void> => {
    const srcDir = path.join(from, rel);
    const dstDir = path.join(to, rel);
    fs.mkdirSync(dstDir, { recursive: true, mode: 0o700 });
    out.push({ path: join(prefix, rel), type: 'dir' });
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(srcDir, { withFileTypes: true });
    } catch (e) {
      if (isMissing(e)) return;
      throw e;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const what = rule(childRel, entry.isDirectory());
      if (what === 'skip') continue;
      if (entry.isDirectory()) {
        if (what === 'empty') {
          fs.mkdirSync(path.join(to, childRel), { recursive: true, mode: 0o700 });
          out.push({ path: join(prefix, childRel), type: 'dir' });
        } else {
          await walk(childRel);
        }
      } else if (entry.isFile()) {
        const copied = await copyFileHashed(path.join(from, childRel), path.join(to, childRel));
        if (copied) out.push({ path: join(prefix, childRel), type: 'file', ...copied });
      } else {
        // A symbolic link in a data directory is a tablespace or pg_wal moved elsewhere: not supported.
        throw new Error(`${path.join(from, childRel)} is not a regular file or directory (tablespaces and a relocated pg_wal are not supported)`);
      }
    }
  };
  await walk('');
  return out;
}

const join = (prefix: string, rel: string) => (rel === '' ? prefix : `${prefix}/${rel}`);

/** The manifest entry of a file already in the backup (at `root`/`rel`). */
export async function fileEntry(root: string, rel: string): Promise<ManifestEntry> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of fs.createReadStream(path.join(root, rel))) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { path: rel, type: 'file', size, sha256: hash.digest('hex') };
}

/** Writes `text` as a file of the backup (0600) and returns its manifest entry. */
export function writeBackupFile(root: string, rel: string, text: string | Buffer): ManifestEntry {
  const data = Buffer.isBuffer(text) ? text : Buffer.from(text);
  fs.writeFileSync(path.join(root, rel), data, { mode: 0o600 });
  return { path: rel, type: 'file', size: data.length, sha256: createHash('sha256').update(data).digest('hex') };
}
