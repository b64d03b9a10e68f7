// What a step's activity throws is masked of the run's secret values before it leaves
// (domain/automations/step-error-redaction.ts): message, stack trace, details and causes, in
// every predictable spelling, while the error keeps its class, type and retry flags.
import { ApplicationFailure } from '@temporalio/common';
import { redactStepError } from '../../domain/automations/step-error-redaction.ts';

const SECRET = 'pa55/word+with"quotes"';

test('message, stack, details and causes lose every spelling; type and retry flags stay', () => {
  const cause = new Error(`lookup of ${encodeURIComponent(SECRET)} failed`);
  const e = ApplicationFailure.create({
    message: `upstream answered: {"token":${JSON.stringify(SECRET)}} (${Buffer.from(SECRET).toString('base64')})`,
    type: 'StepFailed', nonRetryable: true, details: [{ usage: { total_tokens: 3 }, note: `saw ${SECRET}` }], cause,
  });
  const out = redactStepError(e, [SECRET]) as ApplicationFailure;
  expect(out).toBe(e);
  expect(out.message).toBe('upstream answered: {"token":"[redacted]"} ([redacted])');
  expect(out.stack).toContain('upstream answered: {"token":"[redacted]"}');
  expect(out.stack).not.toContain(SECRET);
  expect(out.details).toEqual([{ usage: { total_tokens: 3 }, note: 'saw [redacted]' }]);
  expect((out.cause as Error).message).toBe('lookup of [redacted] failed');
  expect({ type: out.type, nonRetryable: out.nonRetryable }).toEqual({ type: 'StepFailed', nonRetryable: true });
});

test('an infrastructure error stays what it was (retried as before); without secrets nothing changes', () => {
  class Outage extends Error {}
  const e = new Outage(`connection to db failed while writing ${SECRET}`);
  expect(redactStepError(e, [SECRET])).toBeInstanceOf(Outage);
  expect(e.message).toBe('connection to db failed while writing [redacted]');
  const untouched = new Error(`nothing secret ${SECRET}`);
  expect(redactStepError(untouched, [])).toBe(untouched);
  expect(untouched.message).toBe(`nothing secret ${SECRET}`);
  expect(redactStepError(`thrown text ${SECRET}`, [SECRET])).toBe('thrown text [redacted]');
});

test('a cause cycle is walked once; empty values are ignored', () => {
  const a = new Error(`a ${SECRET}`);
  const b = new Error(`b ${SECRET}`, { cause: a });
  (a as { cause?: unknown }).cause = b;
  redactStepError(a, ['', SECRET]);
  expect([a.message, b.message]).toEqual(['a [redacted]', 'b [redacted]']);
});
