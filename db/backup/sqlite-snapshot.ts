// A consistent copy of a SQLite database that another process is writing (the Temporal dev
// server's DATA_DIR/temporal.db, in WAL mode): SQLite's online backup API, through Node's own
// node:sqlite (no sqlite3 binary needed). Copying the file and its -wal by hand could catch them
// between two commits. The copy runs in one step, under one read transaction: with smaller steps
// every write the server makes in between would restart it from the first page.
import { backup, DatabaseSync } from 'node:sqlite';

const ONE_STEP = 2 ** 31 - 1;

/** Writes a snapshot of the database at `from` to `to` (a new file); resolves with its page count. */
export async function snapshotSqlite(from: string, to: string): Promise<number> {
  // Not read-only: a read-only connection cannot rebuild a WAL index a crashed writer left behind.
  const source = new DatabaseSync(from, { timeout: 30_000 });
  try {
    return await backup(source, to, { rate: ONE_STEP });
  } finally {
    source.close();
  }
}
