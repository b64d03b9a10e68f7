// The platform's accounts as operators list them (GET /v1/admin/users; reference AdminUsersListResponse).
import { z } from 'zod';
import { shape, timestamp } from './registry.ts';
import type { AdminUserRow } from '../../domain/admin/user-list-repository.ts';

export const AdminUsersSchema = shape('AdminUsers', z.object({
  users: z.array(z.object({
    id: z.uuid(),
    email: z.string(),
    display_name: z.string().optional(),
    role: z.string().optional(),
    auth_method: z.string(),
    /** Omitted for an account without an organization (deleted with it). */
    org_id: z.uuid().optional(),
    org_name: z.string().optional(),
    billing_tier: z.string().optional(),
    created_at: timestamp,
    /** The operator's overrides in force on the organization (omitted: none). */
    free_tier_override: z.number().int().optional(),
    is_sponsored: z.boolean().optional(),
    /** Requests of the organization counted this month (with REQUEST_QUOTAS=on). */
    current_month_requests: z.number().int().optional(),
  })),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
}), 'A page of the platform\'s accounts, newest first');

const some = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

export function presentAdminUsers(p: { rows: AdminUserRow[]; total: number }, offset: number, limit: number): z.output<typeof AdminUsersSchema> {
  return {
    users: p.rows.map((u) => ({
      id: u.id, email: u.email, display_name: some(u.display_name), role: some(u.role), auth_method: u.auth_method,
      org_id: some(u.org_id), org_name: some(u.org_name), billing_tier: some(u.tier), created_at: u.created_at.toISOString(),
      free_tier_override: some(u.request_quota === null ? null : Number(u.request_quota)), is_sponsored: some(u.is_sponsored),
      current_month_requests: u.org_id ? Number(u.used ?? 0) : undefined,
    })),
    total: p.total, limit, offset,
  };
}
