// Cron expressions of automations (spec §2.12, §8: 5 or 6 fields, at least one minute apart) →
// the 5-field form Temporal Schedules read (`min hour dom month dow`). Checked strictly here, so
// a bad expression is a 400 on create instead of a schedule that never fires.
//
// Temporal reads a 6-field string as `min … dow year`, not seconds-first: the seconds field must
// go. It also has no `?`: we accept it in day-of-month/day-of-week and hand Temporal `*`.
// Semantics differ from classic cron in one way (STACK-NOTES): when BOTH day-of-month and
// day-of-week are restricted, Temporal fires only on days matching both (`0 9 13 * FRI` = Friday
// the 13th), where classic cron fires on either. We do not emulate the classic rule.
import { invalidField } from '../../errors.ts';

const FIELD = 'cron_expr';
const TZ_FIELD = 'timezone';

function fail(field: string, message: string): never {
  throw invalidField(field, message);
}

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
};

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

type FieldSpec = { label: string; min: number; max: number; names?: string[]; nameBase?: number; question?: boolean };
const FIELDS: FieldSpec[] = [
  { label: 'minute', min: 0, max: 59 },
  { label: 'hour', min: 0, max: 23 },
  { label: 'day-of-month', min: 1, max: 31, question: true },
  { label: 'month', min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { label: 'day-of-week', min: 0, max: 7, names: DAYS, nameBase: 0, question: true },
];

function value(text: string, f: FieldSpec): number {
  if (/^\d{1,2}$/.test(text)) {
    const n = Number(text);
    if (n < f.min || n > f.max) fail(FIELD, `${f.label} value ${n} is out of range ${f.min}-${f.max}`);
    return n;
  }
  const i = f.names?.indexOf(text.toUpperCase()) ?? -1;
  if (i < 0) {
    const names = f.names ? ` or ${f.names[0]}-${f.names[f.names.length - 1]}` : '';
    fail(FIELD, `${f.label} has an invalid value ${JSON.stringify(text)} (expected ${f.min}-${f.max}${names})`);
  }
  return i + f.nameBase!;
}

/** One field: `*`, `?` (day fields, alone), or a list of `a`, `a-b`, `*\/n`, `a-b/n`. Returns Temporal's spelling. */
function checkField(text: string, f: FieldSpec): string {
  if (text === '?') {
    if (!f.question) fail(FIELD, `${f.label} does not accept ?`);
    return '*';
  }
  for (const item of text.split(',')) {
    if (item === '') fail(FIELD, `${f.label} has an empty list item`);
    const [base, step, extra] = item.split('/');
    if (extra !== undefined) fail(FIELD, `${f.label} item ${JSON.stringify(item)} has more than one /`);
    if (step !== undefined) {
      if (!/^\d{1,3}$/.test(step) || Number(step) < 1) fail(FIELD, `${f.label} step in ${JSON.stringify(item)} must be a positive integer`);
      if (Number(step) > f.max - f.min + 1) fail(FIELD, `${f.label} step ${step} is larger than the field's range`);
      if (base !== '*' && !base!.includes('-')) fail(FIELD, `${f.label} item ${JSON.stringify(item)}: a step needs * or a range a-b before it`);
    }
    if (base === '*') continue;
    if (base === '?') fail(FIELD, `${f.label}: ? must stand alone`);
    const bounds = base!.split('-');
    if (bounds.length > 2) fail(FIELD, `${f.label} has an invalid range ${JSON.stringify(base)}`);
    const from = value(bounds[0]!, f);
    if (bounds.length === 2) {
      const to = value(bounds[1]!, f);
      if (to < from) fail(FIELD, `${f.label} range ${JSON.stringify(base)} runs backwards`);
    }
  }
  return text;
}

/**
 * `expr` as the 5-field expression Temporal Schedules read. Accepts 5 fields as is, 6 fields
 * seconds-first (the seconds must be one value 0-59: the minimum interval is one minute; it is
 * dropped), and @yearly @annually @monthly @weekly @daily @midnight @hourly. 400 on `cron_expr`.
 */
export function normalizeCron(expr: string): string {
  if (typeof expr !== 'string') fail(FIELD, 'must be a string');
  const trimmed = expr.trim();
  if (trimmed === '') fail(FIELD, 'must not be empty');
  if (trimmed.length > 200) fail(FIELD, 'must be at most 200 characters');
  if (trimmed.startsWith('@')) {
    const macro = MACROS[trimmed.toLowerCase()];
    if (!Object.hasOwn(MACROS, trimmed.toLowerCase()) || macro === undefined) {
      fail(FIELD, `unknown macro ${JSON.stringify(trimmed)}; accepted: ${Object.keys(MACROS).join(', ')}`);
    }
    return macro;
  }
  let fields = trimmed.split(/\s+/);
  if (fields.length === 6) {
    const sec = fields[0]!;
    if (!/^\d{1,2}$/.test(sec)) fail(FIELD, 'minimum interval is one minute: the seconds field must be a single value 0-59');
    if (Number(sec) > 59) fail(FIELD, `seconds value ${sec} is out of range 0-59`);
    fields = fields.slice(1);
  } else if (fields.length !== 5) {
    fail(FIELD, `must have 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first; got ${fields.length}`);
  }
  return fields.map((t, i) => checkField(t, FIELDS[i]!)).join(' ');
}

/**
 * `tz` checked as an IANA zone name (what Temporal's Go time zone database loads) and returned
 * in its canonical spelling. Offsets like `+01:00`, which Intl also accepts, are refused.
 * Callers apply the 'UTC' default. 400 on `timezone`.
 */
export function checkTimezone(tz: string): string {
  if (typeof tz !== 'string' || tz.trim() === '') fail(TZ_FIELD, 'must be an IANA time zone name, e.g. Europe/Berlin');
  if (tz.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) fail(TZ_FIELD, `${JSON.stringify(tz.slice(0, 64))} is not an IANA time zone name`);
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch (e) {
    if (e instanceof RangeError) fail(TZ_FIELD, `unknown time zone ${JSON.stringify(tz)}`);
    throw e;
  }
}
