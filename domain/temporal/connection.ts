// One Temporal client connection per process; the area clients (domain/<area>/client.ts) share it.
// The data converter carries the payload codec (domain/temporal/payload-codec.ts): without it the
// client would write plaintext to history, and could not read what the workers sealed.
import { Connection, Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { temporalClientInterceptors } from '../observability/tracing.ts';

export async function connectTemporal(address: string, namespace: string, dataConverter?: DataConverter): Promise<Client> {
  const connection = await Connection.connect({ address });
  // With tracing on, a workflow start carries the caller's trace context in its headers.
  return new Client({ connection, namespace, ...(dataConverter ? { dataConverter } : {}), interceptors: temporalClientInterceptors() });
}
