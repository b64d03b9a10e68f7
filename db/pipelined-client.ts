// One Postgres connection in pipeline mode: statements go out as soon as they are issued and
// Postgres runs them in exactly that order, each in its own implicit transaction. Used where
// order matters across statements that are in flight together (the audit chain's appends).
// A broken connection fails the statements on it; the next statement opens a new one.
import pg from 'pg';

export type PipelinedClient = {
  /** All rows of a named (prepared) statement, run after every statement issued before it. */
  many<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]>;
  close(): Promise<void>;
};

export function pipelinedClient(config: pg.ClientConfig): PipelinedClient {
  let current: Promise<pg.Client> | undefined;
  let closed = false;

  const connect = (): Promise<pg.Client> => {
    const client = new pg.Client({ ...config, pipeline: true });
    const forget = () => { if (current === connecting) current = undefined; };
    client.on('error', forget);
    client.on('end', forget);
    const connecting: Promise<pg.Client> = client.connect().then(() => client, (e: unknown) => { forget(); throw e; });
    return connecting;
  };

  return {
    async many<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]> {
      if (closed) throw new Error('pipelined client is closed');
      const client = await (current ??= connect());
      return (await client.query<T>({ name, text, values })).rows;
    },
    async close(): Promise<void> {
      closed = true;
      const c = current;
      current = undefined;
      if (c) await (await c.catch(() => undefined))?.end();
    },
  };
}
