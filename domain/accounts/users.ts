// Creating and finding users and their organizations as entities (signup, invitations).
// The account commands' own statements are in user-repository.ts.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Organization, User } from '../../db/entities/index.ts';
import { conflict, unauthorized } from '../errors.ts';
import { UniqueConstraintViolationException } from '@mikro-orm/core';

export async function findUserByEmail(em: EntityManager, email: string): Promise<User | null> {
  const rows = await em.execute<{ id: string }[]>('SELECT id FROM users WHERE lower(email) = lower(?)', [email]);
  return rows[0] ? em.findOne(User, { id: rows[0].id }) : null;
}

/** The active user behind a principal; a deleted or removed account is a 401. */
export async function loadActiveUser(em: EntityManager, userId: string): Promise<User> {
  const u = await em.findOne(User, { id: userId });
  if (!u || u.status !== 'active') throw unauthorized('Account no longer exists');
  return u;
}

export function newOrganization(em: EntityManager, name: string): Organization {
  return em.create(Organization, { id: randomUUID(), name, billingTier: 'free', createdAt: new Date() });
}

export function newUser(em: EntityManager, f: { email: string; passwordHash: string | null; displayName?: string | null; orgId: string; role: 'owner' | 'admin' | 'member' }): User {
  const now = new Date();
  return em.create(User, {
    id: randomUUID(), orgId: f.orgId, role: f.role, email: f.email, displayName: f.displayName ?? null,
    passwordHash: f.passwordHash, authMethod: 'password', emailVerified: false, marketingEmails: false,
    requirePasskeyForVaults: false, failedLogins: 0, lockedUntil: null, status: 'active', createdAt: now, updatedAt: now,
  });
}

/** Flushes, turning a duplicate e-mail into a 409. */
export async function flushUnique(em: EntityManager, what: string): Promise<void> {
  try {
    await em.flush();
  } catch (e) {
    if (e instanceof UniqueConstraintViolationException) throw conflict(what);
    throw e;
  }
}
