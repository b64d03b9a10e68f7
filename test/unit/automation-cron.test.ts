// Cron expressions and time zones of automations (domain/automations/spec/cron.ts).
import { checkTimezone, normalizeCron } from '../../domain/automations/spec/cron.ts';
import { Problem } from '../../domain/errors.ts';

function refusal(fn: () => unknown, field = 'cron_expr'): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(Problem);
    const p = e as Problem;
    expect(p.status).toBe(400);
    const errors = p.extras.errors as { field: string; message: string }[];
    expect(errors).toEqual([{ field, message: expect.any(String) }]);
    expect(p.detail).toBe(`${field}: ${errors[0]!.message}`);
    return errors[0]!.message;
  }
  throw new Error('expected a 400');
}

describe('normalizeCron', () => {
  test.each([
    ['*/5 * * * *', '*/5 * * * *'],
    ['0 9 * * 1-5', '0 9 * * 1-5'],
    ['  15   3 1,15 * *  ', '15 3 1,15 * *'],
    ['0 0 1 JAN,jul *', '0 0 1 JAN,jul *'],
    ['0 12 * * MON-WED,FRI', '0 12 * * MON-WED,FRI'],
    ['0 0 * * 7', '0 0 * * 7'],
    ['0 0 * * 0-7/2', '0 0 * * 0-7/2'],
    ['0 8-18/2 * * *', '0 8-18/2 * * *'],
    ['59 23 31 12 6', '59 23 31 12 6'],
    ['0 0 ? * MON', '0 0 * * MON'],
    ['0 0 1 * ?', '0 0 1 * *'],
    ['0 30 9 * * MON-FRI', '30 9 * * MON-FRI'],
    ['15 */10 * * * *', '*/10 * * * *'],
    ['0 0 0 ? * SUN', '0 0 * * SUN'],
  ])('%p → %p', (input, expected) => {
    expect(normalizeCron(input)).toBe(expected);
  });

  test.each([
    ['@yearly', '0 0 1 1 *'], ['@annually', '0 0 1 1 *'], ['@monthly', '0 0 1 * *'], ['@weekly', '0 0 * * 0'],
    ['@daily', '0 0 * * *'], ['@midnight', '0 0 * * *'], ['@hourly', '0 * * * *'], [' @Daily ', '0 0 * * *'],
  ])('macro %p → %p', (input, expected) => {
    expect(normalizeCron(input)).toBe(expected);
    expect(normalizeCron(normalizeCron(input))).toBe(expected);
  });

  test.each([
    '* * * * * *', '*/10 * * * * *', '0,30 * * * * *', '0-30 * * * * *', '5/10 * * * * *', '? * * * * *',
  ])('sub-minute seconds %p: minimum interval is one minute', (input) => {
    expect(refusal(() => normalizeCron(input))).toMatch(/minimum interval is one minute/);
  });

  test.each([
    ['60 * * * *', /minute value 60 is out of range 0-59/],
    ['* 24 * * *', /hour value 24 is out of range 0-23/],
    ['* * 0 * *', /day-of-month value 0 is out of range 1-31/],
    ['* * 32 * *', /day-of-month/],
    ['* * * 13 *', /month value 13/],
    ['* * * * 8', /day-of-week value 8/],
    ['60 0 * * * *', /seconds value 60 is out of range/],
    ['* * * JANUARY *', /month has an invalid value "JANUARY"/],
    ['* * * FOO *', /month/],
    ['* * * * MONDAY', /day-of-week/],
    ['* * * * JAN', /day-of-week/],
    ['* * * MON *', /month/],
    ['0 0 * * FRI-MON', /runs backwards/],
    ['*/0 * * * *', /step .* must be a positive integer/],
    ['*/61 * * * *', /larger than the field's range/],
    ['5/15 * * * *', /a step needs \* or a range/],
    ['1,,2 * * * *', /empty list item/],
    ['1-2-3 * * * *', /invalid range/],
    ['*/2/3 * * * *', /more than one \//],
    ['? * * * *', /minute does not accept \?/],
    ['0 0 ?,1 * *', /\? must stand alone/],
    ['-1 * * * *', /minute/],
    ['1.5 * * * *', /minute/],
    ['0 0 1 * * * 2030', /5 fields .* or 6 with seconds first; got 7/],
    ['* * * *', /got 4/],
    ['', /must not be empty/],
    ['@reboot', /unknown macro/],
    ['@every 1m', /unknown macro/],
    ['@constructor', /unknown macro/],
  ])('%p is refused', (input, message) => {
    expect(refusal(() => normalizeCron(input))).toMatch(message);
  });
});

describe('checkTimezone', () => {
  test.each(['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'Etc/GMT+5'])('%p is accepted', (tz) => {
    expect(typeof checkTimezone(tz)).toBe('string');
  });

  test('returns the canonical spelling', () => {
    expect(checkTimezone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(checkTimezone('europe/berlin')).toBe('Europe/Berlin');
  });

  test.each(['Mars/Olympus', 'Europe/Atlantis', '', '+01:00', 'UTC+1', 'Europe/Berlin ', '../etc/passwd', 'x'.repeat(65)])('%p is refused', (tz) => {
    refusal(() => checkTimezone(tz), 'timezone');
  });
});
