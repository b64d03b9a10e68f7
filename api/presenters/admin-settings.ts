// Platform settings and accounts as operators see them (GET/PUT /v1/admin/settings, GET
// /v1/admin/users; reference SettingResponse, AdminUsersListResponse).
import { z } from 'zod';
import { shape, timestamp } from './registry.ts';
import type { SettingRecord } from '../../domain/admin/setting-repository.ts';
import type { AdminUserRow } from '../../domain/admin/user-list-repository.ts';

export const SettingSchema = shape('Setting', z.object({
  key: z.string(),
  value: z.string(),
  /** The operator who set it last; omitted once that account is gone. */
  updated_by: z.string().optional(),
  updated_at: timestamp,
}), 'A platform setting');

export const SettingsListSchema = shape('SettingsList', z.object({ settings: z.array(SettingSchema) }), 'Every platform setting, by key');

export function presentSetting(s: SettingRecord): z.output<typeof SettingSchema> {
  return { key: s.key, value: s.value, ...(s.updated_by ? { updated_by: s.updated_by } : {}), updated_at: s.updated_at.toISOString() };
}

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
