// Policy conditions (reference facts §8): `ip_allowlist` (CIDRs) and `time_window`
// ({start_hour, end_hour, days_of_week, timezone}). A condition the server cannot evaluate
// denies: a grant is never wider than what its author wrote.
import { z } from 'zod';
import { parseCidr, cidrContains } from '../net/ip.ts';

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const dayField = z.union([
  z.number().int().min(0).max(6),
  z.string().trim().toLowerCase().transform((d) => d.slice(0, 3)).refine((d) => DAY_NAMES.includes(d), { message: 'must be a weekday name or 0-6 (0 = Sunday)' }),
]);

export const ConditionsSchema = z.object({
  ip_allowlist: z.array(z.string().max(64).refine((c) => parseCidr(c) !== null, { message: 'must be an IPv4 or IPv6 CIDR' })).max(100).optional(),
  time_window: z.object({
    start_hour: z.number().int().min(0).max(23),
    end_hour: z.number().int().min(0).max(24),
    days_of_week: z.array(dayField).max(7).optional(),
    timezone: z.string().max(64).default('UTC').refine((tz) => { try { new Intl.DateTimeFormat('en-US', { timeZone: tz }); return true; } catch { return false; } }, { message: 'must be an IANA time zone' }),
  }).optional(),
}).strict();

export type Conditions = z.infer<typeof ConditionsSchema>;

/** True when every condition holds for this request. */
export function conditionsHold(raw: unknown, clientIp: string, now: Date): boolean {
  const parsed = ConditionsSchema.safeParse(raw ?? {});
  if (!parsed.success) return false;
  const c = parsed.data;
  if (c.ip_allowlist && !c.ip_allowlist.some((cidr) => cidrContains(parseCidr(cidr)!, clientIp))) return false;
  if (c.time_window) {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: c.time_window.timezone, hour: 'numeric', hourCycle: 'h23', weekday: 'short' }).formatToParts(now);
    const hour = Number(parts.find((p) => p.type === 'hour')?.value);
    const day = DAY_NAMES.indexOf((parts.find((p) => p.type === 'weekday')?.value ?? '').toLowerCase().slice(0, 3));
    const { start_hour: start, end_hour: end, days_of_week: days } = c.time_window;
    // A window may wrap midnight (22 -> 6).
    const inHours = start <= end ? hour >= start && hour < end : hour >= start || hour < end;
    if (!inHours) return false;
    if (days && days.length > 0 && !days.some((d) => (typeof d === 'number' ? d : DAY_NAMES.indexOf(d)) === day)) return false;
  }
  return true;
}
