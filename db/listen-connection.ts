// A dedicated Postgres session for LISTEN and session-level advisory locks: both live exactly as
// long as one connection, so they cannot use a pooled one. Used by the cache invalidation bus
// and the outbox dispatcher; when the connection is lost, `onLost` says so once and the owner
// opens a new one (its LISTENs and locks are gone with the old session).
import pg from 'pg';

export type ListenConnection = {
  listen(channel: string): Promise<void>;
  /** pg_try_advisory_lock on this session: held until the session ends. */
  tryAdvisoryLock(key: number): Promise<boolean>;
  close(): Promise<void>;
};

export type ListenOptions = {
  applicationName?: string;
  onNotification(channel: string, payload: string | undefined): void;
  /** The session ended without close(): its LISTENs and locks are gone. Says which connection. */
  onLost(connection: ListenConnection, error?: Error): void;
};

const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/;

export async function openListenConnection(databaseUrl: string, o: ListenOptions): Promise<ListenConnection> {
  const client = new pg.Client({ connectionString: databaseUrl, ...(o.applicationName ? { application_name: o.applicationName } : {}) });
  let lost = false;
  const connection: ListenConnection = {
    async listen(channel) {
      // LISTEN takes an identifier, not a parameter: only plain names are accepted.
      if (!CHANNEL_NAME.test(channel)) throw new Error(`not a channel name: ${channel}`);
      await client.query(`LISTEN ${channel}`);
    },
    async tryAdvisoryLock(key) {
      const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [key]);
      return got.rows[0]?.ok === true;
    },
    async close() {
      lost = true; // a deliberate close is not a loss
      await client.end().catch(() => {});
    },
  };
  const lose = (e?: Error) => {
    if (lost) return;
    lost = true;
    client.end().catch(() => {});
    o.onLost(connection, e);
  };
  client.on('notification', (n) => o.onNotification(n.channel, n.payload));
  client.on('error', (e) => lose(e));
  client.on('end', () => lose());
  await client.connect();
  return connection;
}
