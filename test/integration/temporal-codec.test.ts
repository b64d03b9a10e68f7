// The Temporal codec endpoint: platform operators (PLATFORM_ADMIN_EMAILS=operator@ops.test in the
// test stack) decode what the workers' payload codec sealed; nobody else can. The `temporal` CLI
// uses it with a Bearer token, the browser UI with a codec link, from the UI's origin only.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { call, closeDb, signup, apiUrl, type Account, operatorAccount } from '../helpers/api.ts';
import { registerAgent, agentJwt } from '../helpers/agent-fixtures.ts';
import { isProblem } from '../helpers/vault-fixtures.ts';
import { projectRoot } from '../helpers/stack.ts';
import { stackCodecKey, stackTemporalClient } from '../helpers/temporal-client.ts';
import { EncryptionCodec } from '../../domain/temporal/payload-codec.ts';
import { findTemporalCli } from '../../workers/temporal-dev-server.ts';

const BASE = '/v1/admin/temporal-codec';
const UI_ORIGIN = 'http://localhost:8233';
const SECRET = `sk-live-${randomUUID()}`;

// The stack's own codec: its key derives from DATA_DIR/root.key, exactly as workers/core.ts does.
const codec = new EncryptionCodec(stackCodecKey());

type WirePayload = { metadata: Record<string, string>; data: string };
const toWire = (p: Payload): WirePayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? []).toString('base64'),
});
const fromWire = (w: WirePayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(w.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(w.data, 'base64'),
});
const text = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

let operator: Account;
let other: Account;
let agentToken: string;

afterAll(closeDb);

beforeAll(async () => {
  // A listed address is not an operator until the account has verified it (anyone may sign up with it).
  operator = await operatorAccount('operator@ops.test', async (unverified) => {
    isProblem(await call('POST', '/v1/admin/temporal-codec/decode', { token: unverified, body: { payloads: [] } }), 403);
  });
  other = await signup('codec-other');
  agentToken = await agentJwt(await registerAgent(other));
});

async function sealed(value: unknown): Promise<WirePayload> {
  const [p] = await codec.encode([defaultPayloadConverter.toPayload(value)!]);
  return toWire(p!);
}

describe('POST /v1/admin/temporal-codec/decode (CLI style, Bearer)', () => {
  test('the operator decodes what the codec sealed; metadata comes back as it was', async () => {
    const input = await sealed({ api_key: SECRET });
    expect(text(input.metadata.encoding!)).toBe('binary/encrypted');
    expect(JSON.stringify(input)).not.toContain(SECRET);
    const r = await call('POST', `${BASE}/decode`, { token: operator.token, headers: { 'x-namespace': 'default' }, body: { payloads: [input] } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['payloads']);
    const [p] = r.body.payloads as WirePayload[];
    expect(text(p!.metadata.encoding!)).toBe('json/plain');
    expect(defaultPayloadConverter.fromPayload(fromWire(p!))).toEqual({ api_key: SECRET });
  });

  test('/encode then /decode round trip; other encodings pass through decode', async () => {
    const plain = toWire(defaultPayloadConverter.toPayload(['a', 1, SECRET])!);
    const enc = await call('POST', `${BASE}/encode`, { token: operator.token, body: { payloads: [plain] } });
    expect(enc.status).toBe(200);
    expect(text(enc.body.payloads[0].metadata.encoding)).toBe('binary/encrypted');
    expect(enc.text).not.toContain(Buffer.from(SECRET).toString('base64').slice(0, 16));
    // The server's key is the stack's root-derived key: the local codec opens it too.
    const [local] = await codec.decode([fromWire(enc.body.payloads[0])]);
    expect(defaultPayloadConverter.fromPayload(local!)).toEqual(['a', 1, SECRET]);
    const dec = await call('POST', `${BASE}/decode`, { token: operator.token, body: { payloads: [enc.body.payloads[0], plain] } });
    expect(dec.status).toBe(200);
    expect(dec.body.payloads).toEqual([plain, plain]);
  });

  test('a non-operator, an agent and an anonymous caller are refused', async () => {
    const body = { payloads: [await sealed(SECRET)] };
    const human = await call('POST', `${BASE}/decode`, { token: other.token, body });
    expect(human.status).toBe(403);
    expect(human.body.detail).toMatch(/platform operators only/);
    expect(human.text).not.toContain(SECRET);
    expect((await call('POST', `${BASE}/encode`, { token: other.token, body })).status).toBe(403);
    expect((await call('POST', `${BASE}/decode`, { token: agentToken, body })).status).toBe(403);
    expect((await call('POST', `${BASE}/decode`, { body })).status).toBe(401);
    expect((await call('POST', `${BASE}/links`, { token: other.token, body: {} })).status).toBe(403);
  });

  test('malformed bodies, tampered payloads and another namespace are 400', async () => {
    for (const body of [{}, { payloads: 'x' }, { payloads: [{ data: 'not base64!' }] }, { payloads: [{ metadata: { encoding: 5 } }] }]) {
      const r = await call('POST', `${BASE}/decode`, { token: operator.token, body });
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
    }
    expect((await call('POST', `${BASE}/decode`, { token: operator.token, raw: '{"payloads":' })).status).toBe(400);
    const good = await sealed(SECRET);
    const bytes = Buffer.from(good.data, 'base64');
    bytes[bytes.length - 1]! ^= 1;
    const tampered = await call('POST', `${BASE}/decode`, { token: operator.token, body: { payloads: [{ ...good, data: bytes.toString('base64') }] } });
    expect(tampered.status).toBe(400);
    expect(tampered.body.detail).toMatch(/could not be decrypted/);
    const ns = await call('POST', `${BASE}/decode`, { token: operator.token, headers: { 'x-namespace': 'elsewhere' }, body: { payloads: [good] } });
    expect(ns.status).toBe(400);
  });

  test('bodies up to 4 MiB are accepted (large histories)', async () => {
    const big = await sealed('x'.repeat(2 * 1024 * 1024));
    const r = await call('POST', `${BASE}/decode`, { token: operator.token, body: { payloads: [big] } });
    expect(r.status).toBe(200);
    expect(defaultPayloadConverter.fromPayload(fromWire(r.body.payloads[0]))).toHaveLength(2 * 1024 * 1024);
  });
});

describe('the browser UI: codec links and CORS', () => {
  const preflight = (url: string, origin: string) => fetch(`${apiUrl()}${url}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
  });

  test('a preflight from the UI origin is answered; from another origin it is refused', async () => {
    for (const origin of [UI_ORIGIN, 'http://127.0.0.1:8233']) {
      const ok = await preflight(`${BASE}/links/tcl_x/decode`, origin);
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe(origin);
      expect(ok.headers.get('access-control-allow-methods')).toMatch(/POST/);
      expect(ok.headers.get('access-control-allow-headers')?.toLowerCase()).toEqual(expect.stringContaining('x-namespace'));
      expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    }
    const evil = await preflight(`${BASE}/decode`, 'http://evil.example');
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    // The actual request from a foreign origin is refused as well, even with a valid credential.
    const r = await call('POST', `${BASE}/decode`, { token: operator.token, headers: { origin: 'http://evil.example' }, body: { payloads: [] } });
    expect(r.status).toBe(403);
  });

  test('an operator mints a link; the UI decodes through it without any Authorization header', async () => {
    const minted = await call('POST', `${BASE}/links`, { token: operator.token, body: { ttl_minutes: 30 } });
    expect(minted.status).toBe(201);
    const endpoint = new URL(minted.body.codec_endpoint);
    expect(endpoint.pathname).toMatch(/^\/v1\/admin\/temporal-codec\/links\/tcl_[A-Za-z0-9_-]+$/);
    const expires = new Date(minted.body.expires_at).getTime();
    expect(expires - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(30 * 60_000);
    // What the Temporal UI sends: fetch(endpoint + '/decode') with Content-Type and X-Namespace only.
    const r = await fetch(`${apiUrl()}${endpoint.pathname}/decode`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-namespace': 'default', origin: UI_ORIGIN },
      body: JSON.stringify({ payloads: [await sealed({ token: SECRET })] }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    const body = await r.json() as { payloads: WirePayload[] };
    expect(defaultPayloadConverter.fromPayload(fromWire(body.payloads[0]!))).toEqual({ token: SECRET });
    // The token never reaches the audit log: the path is recorded redacted.
    const audit = await call('GET', '/v1/audit/events?action=temporal_codec.decode&limit=5', { token: operator.token });
    expect(audit.status).toBe(200);
    expect(audit.body.events.length).toBeGreaterThan(0);
    expect(audit.text).not.toContain(endpoint.pathname.split('/').pop());
  });

  test('a forged, altered or expired link is 401', async () => {
    const minted = await call('POST', `${BASE}/links`, { token: operator.token });
    expect(minted.status).toBe(201);
    const token = new URL(minted.body.codec_endpoint).pathname.split('/').pop()!;
    const altered = token.slice(0, -2) + (token.endsWith('AA') ? 'BA' : 'AA');
    const body = { payloads: [await sealed(SECRET)] };
    for (const t of ['tcl_AAAA', altered, randomUUID()]) {
      const r = await call('POST', `${BASE}/links/${t}/decode`, { body });
      expect({ t, status: r.status }).toEqual({ t, status: 401 });
    }
    expect((await call('POST', `${BASE}/links`, { token: operator.token, body: { ttl_minutes: 100_000 } })).status).toBe(400);
  });
});

describe('the temporal CLI', () => {
  test('`temporal workflow show --codec-endpoint … --codec-auth "Bearer …"` shows decoded history; without it, ciphertext only', async () => {
    const client = await stackTemporalClient();
    const workflowId = `codec-cli-${randomUUID()}`;
    // No worker polls this queue: the start event alone carries the (sealed) input.
    const handle = await client.workflow.start('notRegistered', { taskQueue: `codec-cli-${randomUUID()}`, workflowId, args: [{ token: SECRET }] });
    try {
      const cli = findTemporalCli(projectRoot, process.env.TEMPORAL_CLI_PATH, () => {});
      const show = (extra: string[]) => execFileSync(cli, ['workflow', 'show', '--workflow-id', workflowId, '--address', process.env.TEST_TEMPORAL_ADDRESS!,
        '--namespace', 'default', '--output', 'json', ...extra], { encoding: 'utf8', env: { ...process.env, TEMPORAL_ADDRESS: '' } });
      const raw = show([]);
      expect(raw).not.toContain(SECRET);
      expect(raw).toContain(Buffer.from('binary/encrypted').toString('base64'));
      const decoded = JSON.parse(show(['--codec-endpoint', `${apiUrl()}${BASE}`, '--codec-auth', `Bearer ${operator.token}`]));
      // JSON output keeps payloads in protobuf JSON: metadata and data are base64.
      const [input] = decoded.events[0].workflowExecutionStartedEventAttributes.input.payloads as WirePayload[];
      expect(text(input!.metadata.encoding!)).toBe('json/plain');
      expect(JSON.parse(text(input!.data))).toEqual({ token: SECRET });
      // A non-operator's token gets nothing decoded: the CLI fails (it keeps retrying the codec until its timeout).
      let refused = '';
      try {
        show(['--codec-endpoint', `${apiUrl()}${BASE}`, '--codec-auth', `Bearer ${other.token}`, '--command-timeout', '3s']);
      } catch (e) {
        refused = `${(e as { stdout?: string }).stdout ?? ''}${(e as { stderr?: string }).stderr ?? ''}`;
      }
      expect(refused).toMatch(/403|Forbidden|platform operators only|deadline/i);
      expect(refused).not.toContain(Buffer.from(JSON.stringify({ token: SECRET })).toString('base64'));
    } finally {
      await handle.terminate('test done').catch(() => {});
      await client.connection.close();
    }
  });
});
