// The caller's standing for access decisions: a human's role in the organization (agents have none).
import type { HotReads } from '../../db/hot-reads.ts';
import type { Principal } from '../auth/principal.ts';
import type { Role } from './roles.ts';
import type { Caller } from './access.ts';

export async function loadCaller(hot: HotReads, principal: Principal, clientIp: string): Promise<Caller> {
  if (principal.type !== 'user') return { principal, role: null, clientIp };
  const row = await hot.one<{ role: Role }>('caller-role', "SELECT role FROM users WHERE id = $1 AND org_id = $2 AND status = 'active'", [principal.id, principal.orgId]);
  return { principal, role: row?.role ?? null, clientIp };
}
