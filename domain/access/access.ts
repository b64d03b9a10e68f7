// Who may do what to a secret path. Organization owners and admins manage everything in their
// organization, and a vault's creator manages that vault. Everyone else (members, agents) needs
// an unexpired policy on the vault whose pattern matches the path, whose permissions include the
// one asked for and whose conditions hold; agents are also bounded by the scopes in their token.
// A deny policy that matches wins over any allow.
import type { Principal } from '../auth/principal.ts';
import type { Role } from './roles.ts';
import { compileGlob, globMatches, type CompiledGlob } from '../paths/glob.ts';
import { conditionsHold } from './conditions.ts';
import type { Selectable } from 'kysely';
import type { Database } from '../../db/entities/index.ts';

export type Permission = 'read' | 'write' | 'delete' | 'rotate';

/** What a decision reads of a policy row (db/entities/policies.ts). */
export type PolicyRow = Pick<Selectable<Database['policies']>, 'id' | 'secret_path_pattern' | 'permissions' | 'conditions' | 'expires_at' | 'effect'>;

export type Caller = { principal: Principal; role: Role | null; clientIp: string };
export type VaultOwnership = { created_by: string; created_by_type: string };

export const isManager = (c: Caller) => c.principal.type === 'user' && (c.role === 'owner' || c.role === 'admin');
export const isVaultCreator = (c: Caller, v: VaultOwnership) => v.created_by === c.principal.id && v.created_by_type === c.principal.type;

/** `write` implies `delete` (the reference's PUT-and-DELETE reading of write) and `rotate`. */
function grants(perms: string[], wanted: Permission): boolean {
  return perms.includes(wanted) || ((wanted === 'delete' || wanted === 'rotate') && perms.includes('write'));
}

// Policies are few and read often: keep their compiled patterns (bounded, oldest out first).
const compiled = new Map<string, CompiledGlob | null>();
function compiledGlob(pattern: string): CompiledGlob | null {
  let g = compiled.get(pattern);
  if (g === undefined) {
    try { g = compileGlob(pattern); } catch { g = null; } // a pattern that does not compile grants nothing
    if (compiled.size >= 10_000) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, g);
  }
  return g;
}

function matches(pattern: string, path: string): boolean {
  const g = compiledGlob(pattern);
  return g !== null && globMatches(g, path);
}

function live(p: PolicyRow, now: Date): boolean {
  return p.expires_at === null || p.expires_at.getTime() > now.getTime();
}

/** Token scopes of an agent: `*` alone means everything; otherwise each scope is a path glob. */
export function scopesAllow(scopes: string[] | undefined, path: string): boolean {
  if (scopes === undefined) return true;
  return scopes.some((s) => s === '*' || s === '**' || matches(s, path));
}

export type Decision = { allowed: true } | { allowed: false; detail: string };

export function decide(c: Caller, vault: VaultOwnership, policies: PolicyRow[], path: string, wanted: Permission, now = new Date()): Decision {
  const denied: Decision = { allowed: false, detail: `Permission '${wanted}' is required on this path and none of your grants provides it` };
  if (c.principal.type === 'agent' && !scopesAllow(c.principal.scopes, path)) {
    return { allowed: false, detail: `Your token's scopes do not cover this path for '${wanted}'` };
  }
  const applicable = policies.filter((p) => live(p, now) && matches(p.secret_path_pattern, path) && grants(p.permissions, wanted) && conditionsHold(p.conditions, c.clientIp, now));
  if (applicable.some((p) => p.effect === 'deny')) return denied;
  if (isManager(c) || isVaultCreator(c, vault)) return { allowed: true };
  return applicable.some((p) => p.effect === 'allow') ? { allowed: true } : denied;
}

/** Whether the caller may see the vault at all (list, get): managers, its creator, or any grant on it. */
export function canSeeVault(c: Caller, vault: VaultOwnership, policies: PolicyRow[], now = new Date()): boolean {
  return isManager(c) || isVaultCreator(c, vault) || policies.some((p) => p.effect === 'allow' && live(p, now));
}
