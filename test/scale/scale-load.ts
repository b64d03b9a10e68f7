// The scale check's load, all through the round-robin proxy: secret writes (each a new path,
// so each acknowledged write is one `secret.created` event and one webhook delivery), an agent's
// secret reads, and automation runs (a log step and an http step to the local receiver). It keeps
// what was acknowledged, for the checks after the crash, and counts everything else.
import { randomUUID } from 'node:crypto';

export type Client = (method: string, path: string, opts?: { token?: string; body?: unknown; ip?: string; headers?: Record<string, string> }) => Promise<{ status: number; body: any }>;

let ipSeq = 1;
/** A new client address per request (10.0.0.0/9), so the low rate limit the check sets binds only its own probe. */
export const loadIp = () => { const n = ipSeq++; return `10.${(n >> 16) & 127}.${(n >> 8) & 255}.${n & 255}`; };

/** Requests to `base`, the client address sent as X-Forwarded-For (the api trusts two hops). */
export function client(base: string): Client {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { 'x-forwarded-for': opts.ip ?? loadIp(), ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    try {
      const r = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
      const text = await r.text();
      let body: any = text;
      try { body = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
      return { status: r.status, body };
    } catch {
      return { status: 0, body: undefined }; // the connection broke: unacknowledged
    }
  };
}

export type Fixture = { owner: string; vaultId: string; agentToken: string; automationId: string };

/** An owner (organization on the enterprise plan), a vault, a webhook, an agent that reads it, an automation. */
export async function setUp(call: Client, setPlan: () => Promise<void>, hookUrl: string, runUrl: string): Promise<Fixture> {
  const ok = (what: string, r: { status: number; body: any }, status: number) => {
    if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const owner = ok('signup', await call('POST', '/v1/auth/signup', { body: { email: `scale-${randomUUID().slice(0, 8)}@example.com`, password: 'correct-horse-battery' } }), 200).access_token as string;
  await setPlan();
  const vaultId = ok('vault', await call('POST', '/v1/vaults', { token: owner, body: { name: 'scale' } }), 201).id as string;
  ok('webhook', await call('POST', '/v1/webhooks', { token: owner, body: { url: hookUrl, events: ['secret.created'] } }), 201);
  const agent = ok('agent', await call('POST', '/v1/agents', { token: owner, body: { name: 'scale-reader' } }), 201);
  ok('policy', await call('POST', `/v1/vaults/${vaultId}/policies`, {
    token: owner, body: { secret_path_pattern: 'load/**', principal_type: 'agent', principal_id: agent.agent_id, permissions: ['read'] },
  }), 201);
  const agentToken = ok('agent token', await call('POST', '/v1/auth/agent-token', { body: { api_key: agent.api_key, agent_id: agent.agent_id } }), 200).access_token as string;
  const automationId = ok('automation', await call('POST', '/v1/automations', {
    token: owner, body: {
      name: 'scale', agent_id: agent.agent_id, trigger_type: 'manual',
      workflow_spec: { steps: [{ type: 'log', message: 'run {{input.n}}' }, { type: 'http', method: 'POST', url: runUrl, body: { n: '{{input.n}}' } }] },
    },
  }), 201).id as string;
  return { owner, vaultId, agentToken, automationId };
}

export type Tally = {
  /** Acknowledged writes: path -> value. */
  written: Map<string, string>;
  /** Acknowledged runs' ids. */
  runs: string[];
  /** Every answer's status, per kind of request (0: the connection broke). */
  statuses: Record<'write' | 'read' | 'trigger', Map<number, number>>;
  /** Reads that answered 200 with another value than was written: must stay empty. */
  wrongReads: string[];
};

export const newTally = (): Tally => ({
  written: new Map(), runs: [], wrongReads: [],
  statuses: { write: new Map(), read: new Map(), trigger: new Map() },
});

const count = (m: Map<number, number>, status: number) => m.set(status, (m.get(status) ?? 0) + 1);

/**
 * Runs writers, readers and triggers until `writes` writes and `runs` runs are acknowledged
 * (counts, not time: the check does not depend on the machine's speed).
 */
export async function runLoad(call: Client, f: Fixture, t: Tally, goal: { writes: number; runs: number }): Promise<void> {
  let seq = 0;
  let runSeq = 0;
  const done = () => t.written.size >= goal.writes && t.runs.length >= goal.runs;
  const writer = async () => {
    while (t.written.size < goal.writes) {
      const path = `load/w${seq++}`;
      const value = `v-${randomUUID()}`;
      const r = await call('PUT', `/v1/vaults/${f.vaultId}/secrets/${path}`, { token: f.owner, body: { value } });
      count(t.statuses.write, r.status);
      if (r.status === 201) t.written.set(path, value);
    }
  };
  const reader = async () => {
    while (!done()) {
      const paths = [...t.written.keys()];
      if (paths.length === 0) { await new Promise((r) => setImmediate(r)); continue; }
      const path = paths[Math.floor(Math.random() * paths.length)]!;
      const r = await call('GET', `/v1/vaults/${f.vaultId}/secrets/${path}`, { token: f.agentToken });
      count(t.statuses.read, r.status);
      if (r.status === 200 && r.body?.value !== t.written.get(path)) t.wrongReads.push(path);
    }
  };
  // Runs keep pace with writes, so some are under way whenever the check kills a process.
  const behindWrites = () => t.runs.length < Math.ceil((goal.runs * t.written.size) / goal.writes) || t.written.size >= goal.writes;
  const trigger = async () => {
    while (t.runs.length < goal.runs) {
      if (!behindWrites()) { await new Promise((r) => setTimeout(r, 5)); continue; }
      const n = runSeq++;
      const r = await call('POST', `/v1/automations/${f.automationId}/trigger`, { token: f.owner, body: { input: { n } }, headers: { 'idempotency-key': `scale-${n}` } });
      count(t.statuses.trigger, r.status);
      if ((r.status === 200 || r.status === 202) && typeof r.body?.id === 'string') t.runs.push(r.body.id);
    }
  };
  await Promise.all([writer(), writer(), writer(), writer(), reader(), reader(), reader(), reader(), trigger(), trigger()]);
}
