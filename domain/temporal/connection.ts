// One Temporal client connection per process; the area clients (domain/<area>/client.ts) share it.
import { Connection, Client } from '@temporalio/client';

export async function connectTemporal(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace });
}
