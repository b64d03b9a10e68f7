// A physical backup of the embedded PostgreSQL (DATA_DIR/postgres) while it runs, with the
// server's documented low-level API ("Making a Base Backup Using the Low Level API"): the npm
// package ships no pg_basebackup or pg_dump, and a system pg_dump of another major version
// refuses the server. On one session held open for the whole backup:
//   1. a temporary physical replication slot, so no WAL segment written from now on is removed
//      or recycled before it is copied (the slot goes when the session ends);
//   2. pg_backup_start(label, fast => true): an immediate checkpoint, where replay will begin;
//   3. the data directory is copied, except what PostgreSQL rebuilds at start (pg_wal's segments,
//      postmaster.pid, temporary and statistics files …);
//   4. pg_backup_stop(wait_for_archive => false) returns the backup_label, written into the copy;
//   5. pg_wal's segments from the start segment on are copied, which now hold the backup's end.
// Started on the copy, PostgreSQL finds backup_label, replays the WAL from the checkpoint past
// the backup's end, and opens: the database as it was when the segments were copied.
// A server that is not running is copied as it lies (stopped cleanly, or crash-consistent).
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { copyTree, writeBackupFile, type CopyRule, type ManifestEntry } from './copy-files.ts';

export type PgBackupInfo = {
  /** `online`: copied from a running server with the low-level API; `offline`: a stopped one. */
  mode: 'online' | 'offline';
  /** The data directory's major version (PG_VERSION). */
  majorVersion: string;
  startLsn: string | null;
  stopLsn: string | null;
};

/** What PostgreSQL recreates or must not find in a copy (the list pg_basebackup leaves out). */
const CONTENTS_LEFT_OUT = new Set(['pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_stat_tmp', 'pg_subtrans', 'pg_replslot']);
const FILES_LEFT_OUT = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'backup_label.old', 'tablespace_map', 'current_logfiles']);

const dataDirRule: CopyRule = (rel, isDir) => {
  const top = rel.split('/')[0]!;
  const name = path.posix.basename(rel);
  if (rel === 'pg_wal') return 'empty'; // its segments are copied after pg_backup_stop
  if (CONTENTS_LEFT_OUT.has(top) && rel !== top) return 'skip';
  if (name.startsWith('pgsql_tmp') || name === 'pg_internal.init') return 'skip';
  if (!isDir && rel === name && FILES_LEFT_OUT.has(name)) return 'skip';
  return 'copy';
};

/** The running postmaster of `pgDir`, from its postmaster.pid (line 1 the pid, line 4 the port). */
export function runningPostmaster(pgDir: string): { pid: number; port: number } | null {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return null;
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: it runs, as another user (the `postgres` user when the launcher runs as root).
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return { pid, port };
}

/**
 * Copies the embedded cluster of `dataDir` (DATA_DIR) into `<dest>/postgres`; the entries are
 * for the backup's manifest. `password` is the `postgres` user's (DATA_DIR/postgres.password).
 */
export async function backupEmbeddedPostgres(dataDir: string, dest: string, password: string, log: (m: string) => void): Promise<{ info: PgBackupInfo; entries: ManifestEntry[] }> {
  const pgDir = path.join(dataDir, 'postgres');
  const majorVersion = readMajorVersion(pgDir);
  const target = path.join(dest, 'postgres');
  const running = runningPostmaster(pgDir);
  if (!running) {
    log(`PostgreSQL is not running on ${pgDir}: copying its files as they are`);
    // Everything but the stale lock files: a cluster restored and never started keeps its backup_label.
    const entries = await copyTree(pgDir, target, 'postgres', (rel) => (rel === 'postmaster.pid' || rel === 'postmaster.opts' ? 'skip' : 'copy'));
    return { info: { mode: 'offline', majorVersion, startLsn: null, stopLsn: null }, entries };
  }
  const client = new pg.Client({ host: '127.0.0.1', port: running.port, user: 'postgres', password, database: 'postgres' });
  await client.connect();
  try {
    const slot = `ocv_backup_${randomBytes(6).toString('hex')}`;
    await client.query('SELECT pg_create_physical_replication_slot($1, true, true)', [slot]);
    const label = `ocv-vault backup ${new Date().toISOString()}`;
    const start = await client.query<{ lsn: string; walfile: string }>(
      'SELECT lsn::text AS lsn, pg_walfile_name(lsn) AS walfile FROM pg_backup_start($1, fast => true) AS lsn', [label]);
    const { lsn: startLsn, walfile: startWal } = start.rows[0]!;
    log(`PostgreSQL backup started at ${startLsn} (${startWal})`);
    const entries = await copyTree(pgDir, target, 'postgres', dataDirRule);
    const stop = await client.query<{ lsn: string; labelfile: string; spcmapfile: string }>(
      'SELECT lsn::text AS lsn, labelfile, spcmapfile FROM pg_backup_stop(wait_for_archive => false)');
    const { lsn: stopLsn, labelfile, spcmapfile } = stop.rows[0]!;
    if (spcmapfile.trim() !== '') throw new Error('the cluster has tablespaces, which this backup does not copy');
    entries.push(writeBackupFile(dest, 'postgres/backup_label', labelfile));
    // From the start segment on (older ones hold nothing replay needs), and timeline history.
    entries.push(...await copyTree(path.join(pgDir, 'pg_wal'), path.join(target, 'pg_wal'), 'postgres/pg_wal', (rel, isDir) => {
      if (isDir) return rel === 'archive_status' || rel === 'summaries' ? 'empty' : 'skip';
      return rel.endsWith('.history') || (/^[0-9A-F]{24}$/.test(rel) && rel >= startWal) ? 'copy' : 'skip';
    }));
    log(`PostgreSQL backup stopped at ${stopLsn}`);
    return { info: { mode: 'online', majorVersion, startLsn, stopLsn }, entries: dedupe(entries) };
  } finally {
    // Ending the session drops the temporary slot, and aborts a backup that did not reach its stop.
    await client.end().catch(() => undefined);
  }
}

function readMajorVersion(pgDir: string): string {
  try {
    return fs.readFileSync(path.join(pgDir, 'PG_VERSION'), 'utf8').trim();
  } catch {
    throw new Error(`${pgDir} holds no PostgreSQL cluster (no PG_VERSION): is DATA_DIR right, and does this deployment use the embedded PostgreSQL?`);
  }
}

/** pg_wal is listed once by the first copy (kept empty) and again by the WAL copy. */
function dedupe(entries: ManifestEntry[]): ManifestEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => (seen.has(e.path) ? false : (seen.add(e.path), true)));
}
