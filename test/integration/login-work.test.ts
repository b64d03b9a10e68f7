// Login timing (issue 8 §6): a wrong password on a real account used to answer ~1.8 ms slower
// than an unknown e-mail (two more database round trips and a write). Timings are never
// asserted; instead this proves both paths do the same work: the same SQL statements in the same
// order, one argon2id verification with the same cost parameters, the same audit record, the
// same answer. The real login command runs against the test database (login-work.probe.ts).
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { projectRoot } from '../helpers/stack.ts';
import { closeDb, signup } from '../helpers/api.ts';

type Work = { status: number; statements: string[]; argon2: string[]; audits: { action: string; details?: unknown }[] };

afterAll(closeDb);

let work: Record<'knownWrong' | 'unknownWrong' | 'knownThrottled' | 'unknownThrottled', Work>;

beforeAll(async () => {
  const a = await signup('login-work');
  const out = execFileSync('sh', [path.join(projectRoot, 'bin', 'node24'), path.join(projectRoot, 'test/integration/login-work.probe.ts'), a.email], {
    cwd: projectRoot, env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL! },
  });
  work = JSON.parse(out.toString());
}, 60_000);

test('a wrong password on a real account and an unknown e-mail run the same statements, argon2 work and audit', () => {
  const { knownWrong: known, unknownWrong: unknown } = work;
  expect(known.status).toBe(401);
  expect(unknown.status).toBe(401);
  expect(known.statements.length).toBeGreaterThan(0);
  expect(known.statements).toEqual(unknown.statements);
  // One write among them: the failure is counted the same way for both.
  expect(known.statements.filter((s) => /\b(INSERT|UPDATE|DELETE)\b/i.test(s))).toHaveLength(1);
  expect(known.argon2).toHaveLength(1);
  expect(known.argon2).toEqual(unknown.argon2);
  expect(known.argon2[0]).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+$/);
  expect(known.audits).toEqual(unknown.audits);
  expect(known.audits).toEqual([expect.objectContaining({ action: 'auth.failure' })]);
});

test('a throttled attempt does the same (smaller) work for a real account and an unknown e-mail, with no password check', () => {
  const { knownThrottled: known, unknownThrottled: unknown } = work;
  expect(known.status).toBe(429);
  expect(unknown.status).toBe(429);
  expect(known.statements).toEqual(unknown.statements);
  expect(known.argon2).toEqual([]);
  expect(unknown.argon2).toEqual([]);
  expect(known.audits).toEqual(unknown.audits);
});
