// Run by login-work.test.ts under Node 24 (MikroORM is ESM only; jest runs CommonJS). Drives the
// real login command against the test database and prints, per path, what it did: every SQL
// statement sent (templates, values aside), every argon2 verification (the hash parameters
// used) and every audit record. Usage: login-work.probe.ts <e-mail of an account with PASSWORD>
import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { openDb } from '../../db/orm.ts';
import { TokenCommands } from '../../domain/accounts/token-commands.ts';
import { AttemptThrottle } from '../../domain/accounts/attempt-throttle.ts';
import { PasswordCheck } from '../../domain/accounts/password-check.ts';
import type { ActionAudit } from '../../domain/audit/action-audit.ts';
import type { ActionContext } from '../../domain/audit/action-context.ts';
import { Problem } from '../../domain/errors.ts';

type Work = { status: number; statements: string[]; argon2: string[]; audits: unknown[] };

let current: Work = { status: 0, statements: [], argon2: [], audits: [] };

class RecordingPasswordCheck extends PasswordCheck {
  protected override verify(hash: string, password: string): Promise<boolean> {
    current.argon2.push(hash.split('$').slice(0, 4).join('$')); // algorithm, version and cost parameters
    return super.verify(hash, password);
  }
}

// Statements are recorded where every one of them goes through, node-pg's Client.query: the
// repositories' typed Kysely (db/query.ts) bypasses MikroORM's query logger. Kysely sends the
// statement's text with $n placeholders, its values apart.
const sendQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function recordQuery(this: pg.Client, ...args: unknown[]) {
  const q = args[0];
  const text = typeof q === 'string' ? q : (q as { text?: string } | undefined)?.text;
  if (text) current.statements.push(text);
  return sendQuery.apply(this, args);
} as typeof pg.Client.prototype.query;

const orm = await openDb(process.env.DATABASE_URL!, 2);

const audit = { record: async (_ctx: unknown, action: string, e: unknown) => { current.audits.push({ action, ...(e as object) }); } } as unknown as ActionAudit;
const unused = new Proxy({}, { get: () => { throw new Error('a failed login must not issue or revoke anything'); } });
const tokens = new TokenCommands({
  db: () => orm.em.fork(), jwt: unused as never, apiKeys: unused as never, revocations: unused as never,
  audit, throttle: new AttemptThrottle(), passwords: new RecordingPasswordCheck(), pepper: createSecretKey(randomBytes(32)),
  mailer: unused as never, publicUrl: 'http://unused', mfa: unused as never,
});

const ctx = (clientIp: string): ActionContext => ({
  principal: null, clientIp, requestId: randomUUID(), method: 'POST', path: '/v1/auth/token', onAudited: () => {},
});

async function attempt(email: string, clientIp: string): Promise<Work> {
  current = { status: 0, statements: [], argon2: [], audits: [] };
  try {
    await tokens.login(ctx(clientIp), { email, password: 'not-the-password' });
    current.status = 200;
  } catch (e) {
    if (!(e instanceof Problem)) throw e;
    current.status = e.status;
  }
  return current;
}

const known = process.argv[2]!;
const unknown = `nobody-${randomUUID().slice(0, 8)}@example.com`;
const out: Record<string, Work> = {};
await attempt(unknown, '192.0.2.3'); // warm-up: the pool's first connection runs checks of its own
out.knownWrong = await attempt(known, '192.0.2.1');
out.unknownWrong = await attempt(unknown, '192.0.2.2');
// Four more failures each, then the next attempt from those addresses must wait.
for (let i = 0; i < 4; i++) { await attempt(known, '192.0.2.1'); await attempt(unknown, '192.0.2.2'); }
out.knownThrottled = await attempt(known, '192.0.2.1');
out.unknownThrottled = await attempt(unknown, '192.0.2.2');
process.stdout.write(JSON.stringify(out));
await orm.close();
