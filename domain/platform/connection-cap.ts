// An app's max_connected_users: its live (not disconnected) connections may not pass it. Checked
// under the app's row lock (lockPlatformApp) by whatever connects a user: the app's upsert, or the
// user's own consent.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Problem } from '../errors.ts';
import { countLiveConnections } from './connection-repository.ts';

export async function assertRoomForConnection(tx: EntityManager, app: { id: string; name: string; max_connected_users: number | null }): Promise<void> {
  const cap = app.max_connected_users;
  if (cap === null || await countLiveConnections(tx, app.id) < cap) return;
  throw new Problem(403, `${app.name} has ${cap} connected users, its max_connected_users`, {
    type: 'resource_limit_exceeded', title: 'Resource Limit Exceeded', extras: { resource: 'connected_users', limit: cap },
  });
}
