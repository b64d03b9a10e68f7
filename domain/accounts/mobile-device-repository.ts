// The mobile device tables (migration 0031). "Good once" is one statement, as for passkeys: a
// challenge is taken by DELETE … RETURNING, a WebAuthn device's counter moves by a conditional UPDATE.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query, withOrmErrors } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { isUuid } from '../ids.ts';

type Row<T extends keyof Database> = Selectable<Database[T]>;

export type ListedDevice = Pick<Row<'mobile_devices'>, 'id' | 'name' | 'platform' | 'attestation_verified' | 'last_used_at' | 'created_at'>;
export type StoredDevice = ListedDevice & Pick<Row<'mobile_devices'>,
  'user_id' | 'public_key_pem' | 'credential_id' | 'credential_public_key' | 'sign_count' | 'push_token' | 'push_platform'>;
export type NewDevice = {
  userId: string; name: string; platform: 'ios' | 'android'; attestationVerified: boolean;
  key: { pem: string } | { credentialId: string; publicKey: Uint8Array; counter: number };
  push: { token: string; platform: 'apns' | 'fcm' } | null;
};
export type TakenChallenge = Pick<Row<'device_challenges'>, 'purpose' | 'target_id'>;

const LISTED = ['id', 'name', 'platform', 'attestation_verified', 'last_used_at', 'created_at'] as const;

/** Stores a device; a WebAuthn credential id already registered is a unique violation. */
export async function insertDevice(em: EntityManager, d: NewDevice): Promise<string> {
  const id = randomUUID();
  const key = 'pem' in d.key
    ? { public_key_pem: d.key.pem }
    : { credential_id: d.key.credentialId, credential_public_key: Buffer.from(d.key.publicKey), sign_count: d.key.counter };
  await withOrmErrors(em, query(em).insertInto('mobile_devices').values({
    id, user_id: d.userId, name: d.name, platform: d.platform, attestation_verified: d.attestationVerified, ...key,
    push_token: d.push?.token ?? null, push_platform: d.push?.platform ?? null,
  }).execute());
  return id;
}

export function devicesOf(em: EntityManager, userId: string): Promise<ListedDevice[]> {
  return query(em).selectFrom('mobile_devices').select([...LISTED])
    .where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

export async function countDevices(em: EntityManager, userId: string): Promise<number> {
  const r = await query(em).selectFrom('mobile_devices').select(sql<number>`count(*)::int`.as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return r.n;
}

/** One of the user's devices, with its key; undefined when it is not theirs, gone or not an id. */
export async function deviceOf(em: EntityManager, userId: string, deviceId: string): Promise<StoredDevice | undefined> {
  if (!isUuid(deviceId)) return undefined;
  return query(em).selectFrom('mobile_devices')
    .select([...LISTED, 'user_id', 'public_key_pem', 'credential_id', 'credential_public_key', 'sign_count', 'push_token', 'push_platform'])
    .where('id', '=', deviceId).where('user_id', '=', userId).executeTakeFirst();
}

export async function deleteDevice(em: EntityManager, userId: string, deviceId: string): Promise<boolean> {
  if (!isUuid(deviceId)) return false;
  const row = await query(em).deleteFrom('mobile_devices').where('id', '=', deviceId).where('user_id', '=', userId).returning('id').executeTakeFirst();
  return row !== undefined;
}

export async function setPushToken(em: EntityManager, userId: string, deviceId: string, token: string, platform: 'apns' | 'fcm'): Promise<boolean> {
  if (!isUuid(deviceId)) return false;
  const row = await query(em).updateTable('mobile_devices').set({ push_token: token, push_platform: platform })
    .where('id', '=', deviceId).where('user_id', '=', userId).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** Stores a challenge's digest; expired challenges (anyone's) are dropped on the way, by index. */
export async function insertDeviceChallenge(
  em: EntityManager, c: { digest: string; deviceId: string; userId: string; purpose: string; targetId: string; ttlSeconds: number },
): Promise<Date> {
  const q = query(em);
  await q.deleteFrom('device_challenges').where('expires_at', '<=', sql<Date>`now()`).execute();
  const row = await q.insertInto('device_challenges').values({
    nonce_digest: c.digest, device_id: c.deviceId, user_id: c.userId, purpose: c.purpose, target_id: c.targetId,
    expires_at: sql<Date>`now() + make_interval(secs => ${c.ttlSeconds})`,
  }).returning('expires_at').executeTakeFirstOrThrow();
  return row.expires_at;
}

/** Takes (deletes) a live challenge of this device and user; undefined when there is none. */
export function takeDeviceChallenge(em: EntityManager, digest: string, deviceId: string, userId: string): Promise<TakenChallenge | undefined> {
  return query(em).deleteFrom('device_challenges')
    .where('nonce_digest', '=', digest).where('device_id', '=', deviceId).where('user_id', '=', userId)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning(['purpose', 'target_id']).executeTakeFirst();
}

/**
 * Records a use. For a WebAuthn device, only if its counter moved forward (or both are 0, for
 * authenticators without one); false means a cloned key or a parallel use of one signature.
 */
export async function recordDeviceUse(em: EntityManager, deviceId: string, counter: number | null): Promise<boolean> {
  let q = query(em).updateTable('mobile_devices').set({ last_used_at: sql<Date>`now()`, ...(counter === null ? {} : { sign_count: counter }) })
    .where('id', '=', deviceId);
  if (counter !== null) q = q.where((eb) => (counter === 0 ? eb('sign_count', '=', 0) : eb('sign_count', '<', counter)));
  return (await q.returning('id').executeTakeFirst()) !== undefined;
}
