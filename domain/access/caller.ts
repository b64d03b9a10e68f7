// The caller's standing for access decisions: a human's role in the organization (agents have none).
import type { HotReads } from '../../db/hot-reads.ts';
import type { Principal } from '../auth/principal.ts';
import type { Caller } from './access.ts';
import { memberRoleHot } from './caller-repository.ts';

export async function loadCaller(hot: HotReads, principal: Principal, clientIp: string): Promise<Caller> {
  if (principal.type !== 'user') return { principal, role: null, clientIp };
  const row = await memberRoleHot(hot, principal.id, principal.orgId);
  return { principal, role: row?.role ?? null, clientIp };
}
