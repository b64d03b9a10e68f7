// Organization roles: owners and admins manage; only owners grant or take away ownership.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/principal.ts';
import { forbidden } from '../errors.ts';
import { memberRole } from './caller-repository.ts';

export type Role = 'owner' | 'admin' | 'member';

export async function roleOf(em: EntityManager, p: Principal): Promise<Role | null> {
  if (p.type !== 'user') return null;
  return (await memberRole(em, p.id, p.orgId))?.role ?? null;
}

export async function requireManager(em: EntityManager, p: Principal): Promise<Role> {
  const role = await roleOf(em, p);
  if (role !== 'owner' && role !== 'admin') throw forbidden('Only organization owners and admins can do this');
  return role;
}
