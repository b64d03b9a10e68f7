// IP allow/block rules (§4.13), the client-IP stage (TRUST_PROXY_HOPS), the global rate limit
// and the production entry point's configuration checks.
//
// A SECOND api process (the production entry `workers/api.ts`) shares the stack's database,
// Temporal and root key. It trusts one proxy hop, so X-Forwarded-For chooses the client address,
// and it has a low rate limit (1 request/s, burst 5). Rule changes made through one api must take
// effect on the other: that is the LISTEN/NOTIFY cache invalidation.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { call, closeDb, eventually, mailTo, signup, uniqueEmail, PASSWORD, type Account, type Res } from '../helpers/api.ts';
import { freePort, spawnEntry, stopGroup, waitFor } from '../helpers/stack.ts';
import { agentJwt, registerAgent } from '../helpers/agent-fixtures.ts';

const isProblem = (r: Res, status: number) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(expect.objectContaining({ type: expect.any(String), title: expect.any(String), status, detail: expect.any(String) }));
};

let logDir: string;
let second: ChildProcess | undefined;
let secondUrl: string;

const logTail = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').slice(-4000) : '');

beforeAll(async () => {
  logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-second-api-'));
  // Neither api sets PUBLIC_URL, so both stamp the same default issuer and share the signing key.
  const probe = await signup('issuer-probe');
  const logFile = path.join(logDir, 'second-api.log');
  const port = await freePort();
  second = spawnEntry('workers/api.ts', {
    DATABASE_URL: process.env.TEST_DATABASE_URL!,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
    PORT: String(port),
    DATA_DIR: process.env.TEST_DATA_DIR!, // holds the root key the first api created
    TRUST_PROXY_HOPS: '1',
    RATE_LIMIT_RPS: '1',
    RATE_LIMIT_BURST: '5',
    LOG_LEVEL: 'warn',
  }, logFile);
  secondUrl = `http://127.0.0.1:${port}`;
  const child = second;
  try {
    await waitFor('second api', 60_000, async () => {
      // Each probe comes from its own address so readiness checks spend no rate-limit budget of the tests.
      const r = await fetch(`${secondUrl}/v1/health`, { headers: { 'x-forwarded-for': '100.127.255.254' } }).catch(() => undefined);
      return r?.status === 200 ? true : undefined;
    }, () => child.exitCode !== null);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- second api log ---\n${logTail(logFile)}`);
  }
  // A token from the main api is accepted by the second.
  const me = await call('GET', '/v1/auth/me', { token: probe.token, base: secondUrl, headers: { 'x-forwarded-for': '100.127.255.253' } });
  expect(me.status).toBe(200);
}, 120_000);

afterAll(async () => {
  if (second) await stopGroup(second);
  await closeDb();
  if (logDir) fs.rmSync(logDir, { recursive: true, force: true });
});

/** A request to the second api from `ip` (the right-most X-Forwarded-For entry). */
const via2 = (method: string, p: string, ip: string, opts: { token?: string; body?: unknown } = {}) =>
  call(method, p, { ...opts, base: secondUrl, headers: { 'x-forwarded-for': ip } });

/** Addresses in a /24, each used once or a few times, so no test exhausts a rate-limit bucket. */
function addresses(prefix: string, first: number): () => string {
  let n = first;
  return () => {
    const ip = `${prefix}.${n}`;
    n = n >= 254 ? 1 : n + 1;
    return ip;
  };
}

/** Polls the second api from ever new addresses until the status is `status`. */
async function eventuallyVia2(status: number, method: string, p: string, next: () => string, token: string): Promise<Res> {
  return eventually(`${method} ${p} answering ${status} on the second api`, async () => {
    const r = await via2(method, p, next(), { token });
    return r.status === status ? r : undefined;
  }, 20_000);
}

async function join(inviter: Account, role: 'member' | 'admin'): Promise<Account> {
  const email = uniqueEmail(`ipr-${role}`);
  expect((await call('POST', '/v1/org/invite', { token: inviter.token, body: { email, role } })).status).toBe(200);
  const token = (await mailTo(email, /Invitation token: (inv_\S+)/))[1]!;
  const r = await call('POST', '/v1/org/invitations/accept', { body: { token, password: PASSWORD } });
  expect(r.status).toBe(200);
  const me = await call('GET', '/v1/auth/me', { token: r.body.access_token });
  return { email, password: PASSWORD, token: r.body.access_token, userId: me.body.id, orgId: me.body.org_id };
}

const listRules = async (token: string) => {
  const r = await call('GET', '/v1/security/ip-rules', { token });
  expect(r.status).toBe(200);
  return r.body.rules as { id: string; cidr: string; rule_type: string }[];
};

describe('rate limit (second api: 1 request/s, burst 5)', () => {
  test('beyond the burst an address gets 429 with Retry-After; another address is still served', async () => {
    const ip = '100.64.1.1';
    for (let i = 0; i < 5; i++) {
      expect((await via2('GET', '/v1/health', ip)).status).toBe(200);
    }
    // The bucket is empty; a volley arriving together cannot all be served by the refill.
    const volley = await Promise.all(Array.from({ length: 10 }, () => via2('GET', '/v1/health', ip)));
    const limited = volley.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const r of limited) {
      isProblem(r, 429);
      const retryAfter = r.headers.get('retry-after');
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    }
    const other = await via2('GET', '/v1/health', '100.64.1.2');
    expect(other.status).toBe(200);
    expect(other.body.status).toBe('ok');
  });

  test('only the right-most X-Forwarded-For entry counts (one trusted hop)', async () => {
    // The left entries are attacker-controlled: varying them must not give fresh buckets.
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i++) statuses.push((await via2('GET', '/v1/health', `1.2.3.${i}, 198.51.100.9`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const volley = await Promise.all(Array.from({ length: 10 }, (_, i) => via2('GET', '/v1/health', `10.9.8.${i + 1}, 198.51.100.9`)));
    expect(volley.some((r) => r.status === 429)).toBe(true);
    // The same bucket without the spoofed part (a volley again: at most one token can have refilled)…
    const plain = await Promise.all(Array.from({ length: 3 }, () => via2('GET', '/v1/health', '198.51.100.9')));
    const limited = plain.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    isProblem(limited[0]!, 429);
    // …while a different right-most entry is a different client, whatever is on its left.
    expect((await via2('GET', '/v1/health', '198.51.100.9, 100.64.2.3')).status).toBe(200);
  });
});

describe('production entry point configuration', () => {
  async function runToExit(env: Record<string, string>, name: string): Promise<{ code: number | null; output: string }> {
    const logFile = path.join(logDir, `${name}.log`);
    const child = spawnEntry('workers/api.ts', { PORT: String(await freePort()), DATA_DIR: process.env.TEST_DATA_DIR!, LOG_LEVEL: 'warn', ...env }, logFile);
    try {
      await waitFor(`${name}: exit`, 30_000, () => (child.exitCode !== null || child.signalCode !== null ? true : undefined));
    } finally {
      await stopGroup(child, 2_000);
    }
    return { code: child.exitCode, output: logTail(logFile) };
  }

  test('refuses to start without DATABASE_URL and names it', async () => {
    const r = await runToExit({ DATABASE_URL: '', TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS! }, 'no-database-url');
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.output).toContain('DATABASE_URL');
    expect(r.output).not.toMatch(/\n\s+at .*\.ts:\d+/); // a plain message, not a stack trace
  });

  test('a wrong value is named', async () => {
    const base = { DATABASE_URL: process.env.TEST_DATABASE_URL!, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS! };
    const rps = await runToExit({ ...base, RATE_LIMIT_RPS: 'abc' }, 'bad-rps');
    expect(rps.code).not.toBe(0);
    expect(rps.code).not.toBeNull();
    expect(rps.output).toContain('RATE_LIMIT_RPS');

    const hops = await runToExit({ ...base, TRUST_PROXY_HOPS: '-1' }, 'bad-hops');
    expect(hops.code).not.toBe(0);
    expect(hops.code).not.toBeNull();
    expect(hops.output).toContain('TRUST_PROXY_HOPS');
  });
});

describe('IP rules CRUD (main api; the client is 127.0.0.1)', () => {
  test('create normalizes the CIDR; list; delete once', async () => {
    const owner = await signup('ipr-crud');
    const created = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '10.1.2.3/8', rule_type: 'block', description: 'office range' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(expect.objectContaining({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), org_id: owner.orgId, cidr: '10.0.0.0/8', rule_type: 'block',
      description: 'office range', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    }));

    const v6 = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '2001:db8::/32', rule_type: 'block' } });
    expect(v6.status).toBe(201);
    expect(v6.body).toEqual(expect.objectContaining({ cidr: '2001:db8::/32', rule_type: 'block' }));
    // Issue 8 §5: a rule without a description omits it (and `label`) rather than sending null.
    expect(v6.body).not.toHaveProperty('description');
    expect(v6.body).not.toHaveProperty('label');

    const deny = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '192.0.2.0/24', rule_type: 'deny', description: 'old spelling' } });
    expect(deny.status).toBe(201);
    expect(deny.body.rule_type).toBe('block');

    const list = await call('GET', '/v1/security/ip-rules', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.rules.map((r: { id: string }) => r.id)).toEqual([created.body.id, v6.body.id, deny.body.id]);
    expect(list.body.rules[0]).toEqual(expect.objectContaining({ id: created.body.id, org_id: owner.orgId, cidr: '10.0.0.0/8', rule_type: 'block', description: 'office range' }));

    const del = await call('DELETE', `/v1/security/ip-rules/${created.body.id}`, { token: owner.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    isProblem(await call('DELETE', `/v1/security/ip-rules/${created.body.id}`, { token: owner.token }), 404);
    expect((await listRules(owner.token)).map((r) => r.id)).toEqual([v6.body.id, deny.body.id]);
    isProblem(await call('DELETE', '/v1/security/ip-rules/not-a-uuid', { token: owner.token }), 404);
  });

  test('an invalid CIDR is a 400 naming cidr', async () => {
    const owner = await signup('ipr-bad-cidr');
    for (const cidr of ['10.0.0.0/33', '300.1.1.1/8', 'abc', '1.2.3.4/-1', '::1/129', '127.1/8', '10.0.0.0/', '0x7f.0.0.1/8', '']) {
      const r = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr, rule_type: 'block' } });
      isProblem(r, 400);
      expect(`${cidr} -> ${r.body.detail}`).toMatch(/cidr/);
    }
    expect(await listRules(owner.token)).toEqual([]);
  });

  test('an unknown rule_type is a 400 naming rule_type', async () => {
    const owner = await signup('ipr-bad-type');
    for (const rule_type of ['permit', 'ALLOW', '', undefined]) {
      const r = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '10.0.0.0/8', rule_type } });
      isProblem(r, 400);
      expect(r.body.detail).toContain('rule_type');
    }
    expect(await listRules(owner.token)).toEqual([]);
  });

  test('a rule that would lock out the caller is refused', async () => {
    const owner = await signup('ipr-self-lock');
    const block = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '127.0.0.0/8', rule_type: 'block' } });
    isProblem(block, 400);
    expect(block.body.detail).toContain('127.0.0.1');
    // An allow list that does not contain the caller's address would lock it out too.
    isProblem(await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '198.51.100.0/24', rule_type: 'allow' } }), 400);
    expect(await listRules(owner.token)).toEqual([]);
    // Still reachable.
    expect((await call('GET', '/v1/auth/me', { token: owner.token })).status).toBe(200);
  });

  test("another organization's rule is a 404 and stays", async () => {
    const a = await signup('ipr-org-a');
    const b = await signup('ipr-org-b');
    const rule = await call('POST', '/v1/security/ip-rules', { token: a.token, body: { cidr: '10.0.0.0/8', rule_type: 'block' } });
    expect(rule.status).toBe(201);
    isProblem(await call('DELETE', `/v1/security/ip-rules/${rule.body.id}`, { token: b.token }), 404);
    expect(await listRules(b.token)).toEqual([]);
    expect((await listRules(a.token)).map((r) => r.id)).toEqual([rule.body.id]);
  });

  test('a member may not list, create or delete rules; an admin may', async () => {
    const owner = await signup('ipr-roles');
    const rule = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '10.0.0.0/8', rule_type: 'block' } });
    expect(rule.status).toBe(201);
    const member = await join(owner, 'member');
    isProblem(await call('GET', '/v1/security/ip-rules', { token: member.token }), 403);
    isProblem(await call('POST', '/v1/security/ip-rules', { token: member.token, body: { cidr: '172.16.0.0/12', rule_type: 'block' } }), 403);
    isProblem(await call('DELETE', `/v1/security/ip-rules/${rule.body.id}`, { token: member.token }), 403);
    expect((await listRules(owner.token)).map((r) => r.id)).toEqual([rule.body.id]);

    const admin = await join(owner, 'admin');
    const byAdmin = await call('POST', '/v1/security/ip-rules', { token: admin.token, body: { cidr: '172.16.0.0/12', rule_type: 'block' } });
    expect(byAdmin.status).toBe(201);
    expect((await call('DELETE', `/v1/security/ip-rules/${rule.body.id}`, { token: admin.token })).status).toBe(204);
    expect((await listRules(owner.token)).map((r) => r.id)).toEqual([byAdmin.body.id]);
  });

  test('without a token is a 401', async () => {
    const owner = await signup('ipr-noauth');
    isProblem(await call('GET', '/v1/security/ip-rules'), 401);
    isProblem(await call('POST', '/v1/security/ip-rules', { body: { cidr: '10.0.0.0/8', rule_type: 'block' } }), 401);
    const rule = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '10.0.0.0/8', rule_type: 'block' } });
    isProblem(await call('DELETE', `/v1/security/ip-rules/${rule.body.id}`), 401);
    expect((await listRules(owner.token)).map((r) => r.id)).toEqual([rule.body.id]);
  });
});

describe('IP rule enforcement (the client address chosen through the second api)', () => {
  test('a block rule made on the main api takes effect on the second; deleting it lifts it', async () => {
    const owner = await signup('ipr-block');
    const good = addresses('198.51.100', 10);
    const blocked = addresses('203.0.113', 51);
    // Warm the second api's rule cache for this organization (no rules yet).
    expect((await via2('GET', '/v1/auth/me', '203.0.113.50', { token: owner.token })).status).toBe(200);
    expect((await via2('GET', '/v1/auth/me', good(), { token: owner.token })).status).toBe(200);

    const rule = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '203.0.113.0/24', rule_type: 'block' } });
    expect(rule.status).toBe(201);

    const first = await eventuallyVia2(403, 'GET', '/v1/auth/me', blocked, owner.token);
    isProblem(first, 403);
    const r50 = await via2('GET', '/v1/auth/me', '203.0.113.50', { token: owner.token });
    isProblem(r50, 403);
    expect(r50.body.detail).toMatch(/blocked/i);
    // An IPv4-mapped IPv6 spelling is the same client.
    isProblem(await via2('GET', '/v1/auth/me', '::ffff:203.0.113.50', { token: owner.token }), 403);
    isProblem(await via2('GET', '/v1/security/ip-rules', blocked(), { token: owner.token }), 403);
    // Other addresses are served.
    const ok = await via2('GET', '/v1/auth/me', good(), { token: owner.token });
    expect(ok.status).toBe(200);
    expect(ok.body.id).toBe(owner.userId);
    // Public routes carry no principal, so no organization rule applies to them.
    expect((await via2('GET', '/v1/health', blocked())).status).toBe(200);
    // The rule binds only its own organization.
    const stranger = await signup('ipr-block-stranger');
    expect((await via2('GET', '/v1/auth/me', blocked(), { token: stranger.token })).status).toBe(200);

    expect((await call('DELETE', `/v1/security/ip-rules/${rule.body.id}`, { token: owner.token })).status).toBe(204);
    const lifted = await eventuallyVia2(200, 'GET', '/v1/auth/me', blocked, owner.token);
    expect(lifted.body.id).toBe(owner.userId);
    expect((await via2('GET', '/v1/auth/me', '203.0.113.50', { token: owner.token })).status).toBe(200);
  });

  test("a block rule covering the caller's own address is refused (lockout protection)", async () => {
    const owner = await signup('ipr-lockout');
    const good = addresses('198.51.100', 10);
    const me = good();
    const r = await via2('POST', '/v1/security/ip-rules', me, { token: owner.token, body: { cidr: '198.51.100.0/24', rule_type: 'block' } });
    isProblem(r, 400);
    expect(r.body.detail).toContain(me);
    const exact = good();
    isProblem(await via2('POST', '/v1/security/ip-rules', exact, { token: owner.token, body: { cidr: `${exact}/32`, rule_type: 'deny' } }), 400);
    // An allow list without the caller's address is a lockout too.
    isProblem(await via2('POST', '/v1/security/ip-rules', good(), { token: owner.token, body: { cidr: '192.0.2.0/24', rule_type: 'allow' } }), 400);
    expect(await listRules(owner.token)).toEqual([]);
    // A block rule for someone else's range is fine.
    expect((await via2('POST', '/v1/security/ip-rules', good(), { token: owner.token, body: { cidr: '203.0.113.0/24', rule_type: 'block' } })).status).toBe(201);
    expect((await listRules(owner.token)).map((x) => x.cidr)).toEqual(['203.0.113.0/24']);
  });

  test('an allow rule admits only its addresses, on both apis; deleting it restores access', async () => {
    const owner = await signup('ipr-allow');
    const good = addresses('198.51.100', 10);
    const outside = addresses('192.0.2', 2);
    // Warm both apis' caches for this organization.
    expect((await call('GET', '/v1/auth/me', { token: owner.token })).status).toBe(200);
    expect((await via2('GET', '/v1/auth/me', '192.0.2.1', { token: owner.token })).status).toBe(200);

    // Made on the second api, where the caller is 198.51.100.x (inside the allowed range).
    const rule = await via2('POST', '/v1/security/ip-rules', '198.51.100.10', { token: owner.token, body: { cidr: '198.51.100.0/24', rule_type: 'allow', description: 'VPN' } });
    expect(rule.status).toBe(201);
    expect(rule.body).toEqual(expect.objectContaining({ cidr: '198.51.100.0/24', rule_type: 'allow', org_id: owner.orgId }));

    const denied = await via2('GET', '/v1/auth/me', '192.0.2.1', { token: owner.token });
    isProblem(denied, 403);
    expect(denied.body.detail).toMatch(/allow list/i);
    expect((await via2('GET', '/v1/auth/me', good(), { token: owner.token })).status).toBe(200);
    // The main api (client 127.0.0.1) learns of the rule through the invalidation channel.
    const mainDenied = await eventually('allow rule on the main api', async () => {
      const r = await call('GET', '/v1/auth/me', { token: owner.token });
      return r.status === 403 ? r : undefined;
    }, 20_000);
    isProblem(mainDenied, 403);
    isProblem(await call('DELETE', `/v1/security/ip-rules/${rule.body.id}`, { token: owner.token }), 403);

    // Only an allowed address can remove the rule; then everyone is served again.
    expect((await via2('DELETE', `/v1/security/ip-rules/${rule.body.id}`, good(), { token: owner.token })).status).toBe(204);
    const back = await via2('GET', '/v1/auth/me', '192.0.2.1', { token: owner.token });
    expect(back.status).toBe(200);
    expect((await eventuallyVia2(200, 'GET', '/v1/auth/me', outside, owner.token)).body.id).toBe(owner.userId);
    const mainBack = await eventually('allow rule gone on the main api', async () => {
      const r = await call('GET', '/v1/auth/me', { token: owner.token });
      return r.status === 200 ? r : undefined;
    }, 20_000);
    expect(mainBack.body.org_id).toBe(owner.orgId);
  });

  test('rules created on the main api are enforced on the second, allow and block together', async () => {
    const owner = await signup('ipr-mixed');
    const good = addresses('198.51.100', 10);
    const outside = addresses('192.0.2', 100);
    expect((await via2('GET', '/v1/auth/me', outside(), { token: owner.token })).status).toBe(200); // warm

    // The main api sees 127.0.0.1: allow it first so the allow list does not lock the caller out.
    const self = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '127.0.0.1/32', rule_type: 'allow' } });
    expect(self.status).toBe(201);
    const allow = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '198.51.100.0/24', rule_type: 'allow' } });
    expect(allow.status).toBe(201);
    // Block wins over allow.
    const block = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '198.51.100.128/25', rule_type: 'block' } });
    expect(block.status).toBe(201);

    isProblem(await eventuallyVia2(403, 'GET', '/v1/auth/me', outside, owner.token), 403);
    const blockedInAllowed = await eventuallyVia2(403, 'GET', '/v1/auth/me', addresses('198.51.100', 200), owner.token);
    expect(blockedInAllowed.body.detail).toMatch(/blocked/i);
    expect((await via2('GET', '/v1/auth/me', good(), { token: owner.token })).status).toBe(200);
    expect((await call('GET', '/v1/auth/me', { token: owner.token })).status).toBe(200);

    for (const r of [block, allow, self]) {
      expect((await call('DELETE', `/v1/security/ip-rules/${r.body.id}`, { token: owner.token })).status).toBe(204);
    }
    expect((await eventuallyVia2(200, 'GET', '/v1/auth/me', outside, owner.token)).body.id).toBe(owner.userId);
    expect((await eventuallyVia2(200, 'GET', '/v1/auth/me', addresses('198.51.100', 220), owner.token)).body.id).toBe(owner.userId);
  });
});

// Issue 8 §5: the reference's CreateIpRuleRequest (`deny`, `label`, `applies_to`) is accepted and
// its IpRuleResponse fields (`label`, `applies_to`, `created_by`) are on every record.
describe('IP rule fields of the reference', () => {
  test('label stands for description; applies_to defaults to all; created_by is the creator', async () => {
    const owner = await signup('ipr-label');
    const r = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '10.0.0.0/8', rule_type: 'deny', label: 'office' } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), org_id: owner.orgId, cidr: '10.0.0.0/8', rule_type: 'block', applies_to: 'all',
      description: 'office', label: 'office', created_by: owner.userId, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // The spec's name wins when both are given.
    const both = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '172.16.0.0/12', rule_type: 'block', description: 'spec', label: 'reference' } });
    expect(both.body).toEqual(expect.objectContaining({ description: 'spec', label: 'spec' }));
    const list = await call('GET', '/v1/security/ip-rules', { token: owner.token });
    expect(list.body.rules).toEqual([r.body, both.body]);
  });

  test('an unknown applies_to is a 400 naming applies_to', async () => {
    const owner = await signup('ipr-applies-bad');
    for (const applies_to of ['everyone', 'user', '', 42]) {
      const r = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '10.0.0.0/8', rule_type: 'block', applies_to } });
      isProblem(r, 400);
      expect(r.body.detail).toContain('applies_to');
    }
    expect(await listRules(owner.token)).toEqual([]);
  });

  test('a rule for agents binds agents only, so it may cover the human caller\'s own address', async () => {
    const owner = await signup('ipr-agents');
    const agent = await agentJwt(await registerAgent(owner));
    expect((await call('GET', '/v1/agents/me', { token: agent })).status).toBe(200);

    // Bound to users, the same rule would lock the caller (127.0.0.1) out.
    isProblem(await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '127.0.0.0/8', rule_type: 'block', applies_to: 'users' } }), 400);
    const rule = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '127.0.0.0/8', rule_type: 'block', applies_to: 'agents' } });
    expect(rule.status).toBe(201);
    expect(rule.body.applies_to).toBe('agents');

    const blocked = await call('GET', '/v1/agents/me', { token: agent });
    isProblem(blocked, 403);
    expect(blocked.body.detail).toMatch(/blocked/i);
    expect((await call('GET', '/v1/auth/me', { token: owner.token })).status).toBe(200);

    expect((await call('DELETE', `/v1/security/ip-rules/${rule.body.id}`, { token: owner.token })).status).toBe(204);
    expect((await call('GET', '/v1/agents/me', { token: agent })).status).toBe(200);
  });

  test('a rule for users binds humans only (enforced on the second api too)', async () => {
    const owner = await signup('ipr-users');
    const agent = await agentJwt(await registerAgent(owner));
    const blocked = addresses('203.0.113', 120);
    expect((await via2('GET', '/v1/auth/me', blocked(), { token: owner.token })).status).toBe(200); // warm

    const rule = await call('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '203.0.113.0/24', rule_type: 'block', applies_to: 'users' } });
    expect(rule.status).toBe(201);
    isProblem(await eventuallyVia2(403, 'GET', '/v1/auth/me', blocked, owner.token), 403);
    const asAgent = await via2('GET', '/v1/agents/me', blocked(), { token: agent });
    expect(asAgent.status).toBe(200);
    expect(asAgent.body.id).toEqual(expect.any(String));
  });
});
