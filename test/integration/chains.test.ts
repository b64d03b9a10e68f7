// Chains (§2.8, §4.1, §4.14): anyone reads the enabled chains by internal id, chain_id or name;
// platform operators (chains-operator@ops.test in the test stack) manage them. Public answers
// never show an RPC URL that may hold a provider's key, nor one pinned by CHAIN_RPC_URLS (the
// stack pins `pinned-testnet`, see test/helpers/global-setup.ts). Tests create their own chains
// and leave the seeded ones as they are, since other files may rely on them.
import { randomInt, randomUUID } from 'node:crypto';
import { call, closeDb, db, signup, type Account, operatorAccount } from '../helpers/api.ts';
import { registerAgent, agentJwt } from '../helpers/agent-fixtures.ts';

const OPERATOR_EMAIL = 'chains-operator@ops.test';
const PINNED_NAME = 'pinned-testnet';
const PINNED_URL = 'https://pinned.example.test/v2/pinned-key-0123456789abcdef';
const KEYED_RPC = `https://eth-mainnet.g.alchemy.com/v2/${randomUUID().replace(/-/g, '')}`;

const SEEDED: [string, number, string][] = [
  ['ethereum', 1, 'https://etherscan.io'], ['sepolia', 11155111, 'https://sepolia.etherscan.io'],
  ['base', 8453, 'https://basescan.org'], ['base-sepolia', 84532, 'https://sepolia.basescan.org'],
  ['optimism', 10, 'https://optimistic.etherscan.io'], ['optimism-sepolia', 11155420, 'https://sepolia-optimism.etherscan.io'],
  ['arbitrum', 42161, 'https://arbiscan.io'], ['arbitrum-sepolia', 421614, 'https://sepolia.arbiscan.io'],
  ['polygon', 137, 'https://polygonscan.com'], ['polygon-amoy', 80002, 'https://amoy.polygonscan.com'],
];

let operator: Account;
let user: Account;
let agentToken: string;

/** A name and chain_id no other test uses. */
const fresh = () => ({ name: `test-${randomUUID().slice(0, 8)}`, chain_id: 900_000_000 + randomInt(99_999_999) });


const adminList = async () => {
  const r = await call('GET', '/v1/admin/chains', { token: operator.token });
  expect(r.status).toBe(200);
  return r.body.chains as any[];
};

async function createChain(body: Record<string, unknown>): Promise<any> {
  const r = await call('POST', '/v1/admin/chains', { token: operator.token, body });
  expect({ status: r.status, detail: r.body.detail }).toEqual({ status: 201, detail: undefined });
  return r.body;
}

afterAll(closeDb);

beforeAll(async () => {
  operator = await operatorAccount(OPERATOR_EMAIL);
  user = await signup('chains-user');
  agentToken = await agentJwt(await registerAgent(user));
});

describe('public reads', () => {
  test('GET /v1/chains lists the seeded EVM chains with their real chain ids and explorers, without a token', async () => {
    const r = await call('GET', '/v1/chains');
    expect(r.status).toBe(200);
    const byName = new Map((r.body.chains as any[]).map((c) => [c.name, c]));
    for (const [name, chainId, explorer] of SEEDED) {
      expect(byName.get(name)).toMatchObject({ name, chain_id: chainId, explorer_url: explorer, is_enabled: true, is_testnet: name.includes('-') || name === 'sepolia' });
      expect(byName.get(name).rpc_url).toMatch(/^https:\/\//);
    }
    expect(byName.get('polygon')).toMatchObject({ display_name: 'Polygon', native_currency: 'POL' });
    expect(byName.get('ethereum')).toMatchObject({ display_name: 'Ethereum', native_currency: 'ETH' });
    expect((r.body.chains as any[]).every((c) => c.is_enabled)).toBe(true);
    const names = (r.body.chains as any[]).map((c) => c.name);
    expect(names).toEqual([...names].sort());
  });

  test('GET /v1/chains/{identifier} finds a chain by internal id, chain_id (decimal or hex) and name in any case', async () => {
    const base = (await call('GET', '/v1/chains/base')).body;
    expect(base).toMatchObject({ name: 'base', chain_id: 8453, rpc_url: 'https://mainnet.base.org' });
    for (const id of [base.id, base.id.toUpperCase(), '8453', '0x2105', 'Base', 'BASE']) {
      const r = await call('GET', `/v1/chains/${id}`);
      expect({ id, status: r.status, body: r.body }).toEqual({ id, status: 200, body: base });
    }
  });

  test('an unknown identifier is 404 problem details', async () => {
    for (const id of [randomUUID(), '999999999999', 'no-such-chain', '0', 'not%20a%20name', '-1']) {
      const r = await call('GET', `/v1/chains/${id}`);
      expect({ id, status: r.status, type: r.headers.get('content-type') }).toEqual({ id, status: 404, type: expect.stringMatching(/problem\+json/) });
    }
  });
});

describe('who may manage chains', () => {
  test('401 without a token, 403 for an ordinary user and for an agent; nothing changes', async () => {
    const before = await adminList();
    const target = before.find((c) => c.name === 'sepolia').id;
    const attempts: [string, string, unknown?][] = [
      ['GET', '/v1/admin/chains'], ['POST', '/v1/admin/chains', fresh()],
      ['PUT', `/v1/admin/chains/${target}`, { is_enabled: false }], ['DELETE', `/v1/admin/chains/${target}`],
    ];
    for (const [method, path, body] of attempts) {
      expect({ method, status: (await call(method, path, { body })).status }).toEqual({ method, status: 401 });
      const asUser = await call(method, path, { token: user.token, body });
      expect({ method, status: asUser.status, detail: asUser.body.detail }).toEqual({ method, status: 403, detail: expect.stringMatching(/platform operators only/) });
      expect({ method, status: (await call(method, path, { token: agentToken, body })).status }).toEqual({ method, status: 403 });
    }
    expect(await adminList()).toEqual(before);
  });
});

describe('operators manage chains', () => {
  test('create (defaults), read publicly, update, disable (hidden from the public), delete', async () => {
    const f = fresh();
    const created = await createChain({ ...f, rpc_url: 'https://rpc.example.org', explorer_url: 'https://explorer.example.org', is_testnet: true });
    expect(created).toMatchObject({
      ...f, display_name: f.name, native_currency: 'ETH', rpc_url: 'https://rpc.example.org', is_testnet: true, is_enabled: true, rpc_url_pinned: false,
    });
    expect(created.ws_url).toBeUndefined();
    const pub = await call('GET', `/v1/chains/${f.chain_id}`);
    expect(pub.status).toBe(200);
    expect(pub.body).toEqual(Object.fromEntries(Object.entries(created).filter(([k]) => k !== 'rpc_url_pinned')));

    // PUT is partial; the admin {chain_id} takes a chain_id, a name or an internal id alike.
    const upd = await call('PUT', `/v1/admin/chains/${f.chain_id}`, { token: operator.token, body: { display_name: 'Test Net', ws_url: 'wss://rpc.example.org/ws', native_currency: 'TST' } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ id: created.id, display_name: 'Test Net', ws_url: 'wss://rpc.example.org/ws', native_currency: 'TST', rpc_url: 'https://rpc.example.org' });
    // Sending back the unchanged name and chain_id is fine (clients PUT what they read).
    const off = await call('PUT', `/v1/admin/chains/${f.name}`, { token: operator.token, body: { name: f.name, chain_id: f.chain_id, is_enabled: false, explorer_url: null } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ is_enabled: false });
    expect(off.body.explorer_url).toBeUndefined();

    expect((await call('GET', `/v1/chains/${created.id}`)).status).toBe(404);
    expect((await call('GET', '/v1/chains')).body.chains.map((c: any) => c.name)).not.toContain(f.name);
    expect((await adminList()).find((c) => c.id === created.id)).toMatchObject({ is_enabled: false });

    const audit = await db().query("SELECT action, details FROM audit_events WHERE resource_type = 'chain' AND resource_id = $1 ORDER BY seq", [created.id]);
    expect(audit.rows.map((r) => r.action)).toEqual(['chain.create', 'chain.update', 'chain.update']);
    expect(audit.rows[0].details).toMatchObject({ name: f.name, chain_id: f.chain_id, rpc_url_origin: 'https://rpc.example.org' });

    expect((await call('DELETE', `/v1/admin/chains/${created.id}`, { token: operator.token })).status).toBe(204);
    expect((await adminList()).find((c) => c.id === created.id)).toBeUndefined();
    for (const [method, body] of [['PUT', { is_enabled: true }], ['DELETE', undefined]] as const) {
      expect((await call(method, `/v1/admin/chains/${created.id}`, { token: operator.token, body })).status).toBe(404);
    }
  });

  test('an RPC URL that holds a key: operators see it, the public answer omits it, the audit log keeps its origin only', async () => {
    const f = fresh();
    const created = await createChain({ ...f, rpc_url: KEYED_RPC });
    expect(created.rpc_url).toBe(KEYED_RPC);
    const key = KEYED_RPC.split('/').pop()!;
    for (const path of [`/v1/chains/${f.name}`, '/v1/chains']) {
      const r = await call('GET', path);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(key);
    }
    expect((await call('GET', `/v1/chains/${f.name}`)).body.rpc_url).toBeUndefined();
    expect((await adminList()).find((c) => c.id === created.id).rpc_url).toBe(KEYED_RPC);
    const audit = await db().query("SELECT details::text AS d FROM audit_events WHERE resource_type = 'chain' AND resource_id = $1", [created.id]);
    expect(audit.rows.length).toBe(1);
    expect(audit.rows[0].d).not.toContain(key);
    expect(audit.rows[0].d).toContain('https://eth-mainnet.g.alchemy.com');
    expect((await call('DELETE', `/v1/admin/chains/${f.name}`, { token: operator.token })).status).toBe(204);
  });

  test('CHAIN_RPC_URLS pins a chain\'s rpc_url: shown to operators, never to the public, and not replaceable through the API', async () => {
    const f = { ...fresh(), name: PINNED_NAME };
    const conflicting = await call('POST', '/v1/admin/chains', { token: operator.token, body: { ...f, rpc_url: 'https://other.example.org' } });
    expect(conflicting.status).toBe(409);
    expect(conflicting.body.detail).toMatch(/CHAIN_RPC_URLS/);
    const created = await createChain(f);
    expect(created).toMatchObject({ name: PINNED_NAME, rpc_url: PINNED_URL, rpc_url_pinned: true });
    const pub = await call('GET', `/v1/chains/${PINNED_NAME}`);
    expect(pub.status).toBe(200);
    expect(pub.body.rpc_url).toBeUndefined();
    expect(pub.text).not.toContain('pinned-key');

    const change = await call('PUT', `/v1/admin/chains/${PINNED_NAME}`, { token: operator.token, body: { rpc_url: 'https://other.example.org' } });
    expect(change.status).toBe(409);
    expect(change.body.errors).toEqual([{ field: 'rpc_url', message: expect.any(String) }]);
    const same = await call('PUT', `/v1/admin/chains/${PINNED_NAME}`, { token: operator.token, body: { rpc_url: PINNED_URL, display_name: 'Pinned' } });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ rpc_url: PINNED_URL, rpc_url_pinned: true, display_name: 'Pinned' });
    // The pin is applied on read and never stored.
    const stored = await db().query('SELECT rpc_url FROM chains WHERE name = $1', [PINNED_NAME]);
    expect(stored.rows[0].rpc_url).toBeNull();
    expect((await call('DELETE', `/v1/admin/chains/${created.id}`, { token: operator.token })).status).toBe(204);
  });

  test('bad input is a 400 naming the field, and nothing changes', async () => {
    const before = await adminList();
    const f = fresh();
    const badCreates: [string, Record<string, unknown>][] = [
      ['name', { ...f, name: 'Has Space' }], ['name', { ...f, name: '12345' }], ['name', { ...f, name: 'x'.repeat(65) }],
      ['name', { chain_id: f.chain_id }], ['chain_id', { name: f.name }], ['chain_id', { ...f, chain_id: 0 }],
      ['chain_id', { ...f, chain_id: 1.5 }], ['chain_id', { ...f, chain_id: '8453' }], ['chain_id', { ...f, chain_id: 2 ** 53 }],
      ['rpc_url', { ...f, rpc_url: 'ftp://rpc.example.org' }], ['rpc_url', { ...f, rpc_url: 'not a url' }], ['rpc_url', { ...f, rpc_url: 'wss://rpc.example.org' }],
      ['ws_url', { ...f, ws_url: 'https://rpc.example.org' }], ['explorer_url', { ...f, explorer_url: 'https://user:pw@explorer.example.org' }],
      ['explorer_url', { ...f, explorer_url: 'javascript:alert(1)' }], ['native_currency', { ...f, native_currency: 'E T H' }],
      ['is_testnet', { ...f, is_testnet: 'yes' }], ['display_name', { ...f, display_name: '' }],
    ];
    for (const [field, body] of badCreates) {
      const r = await call('POST', '/v1/admin/chains', { token: operator.token, body });
      expect({ field, status: r.status, fields: (r.body.errors ?? []).map((e: any) => e.field) }).toEqual({ field, status: 400, fields: expect.arrayContaining([field]) });
    }
    const eth = before.find((c) => c.name === 'ethereum');
    const badUpdates: [string, Record<string, unknown>][] = [
      ['body', {}], ['chain_id', { chain_id: 5 }], ['name', { name: 'mainnet' }], ['rpc_url', { rpc_url: 'http//broken' }],
      ['is_enabled', { is_enabled: 'false' }], ['ws_url', { ws_url: 'ftp://x.example' }],
    ];
    for (const [field, body] of badUpdates) {
      const r = await call('PUT', `/v1/admin/chains/${eth.id}`, { token: operator.token, body });
      expect({ field, status: r.status, fields: (r.body.errors ?? []).map((e: any) => e.field) }).toEqual({ field, status: 400, fields: expect.arrayContaining([field]) });
    }
    expect(await adminList()).toEqual(before);
  });

  test('a duplicate name or chain_id is a 409 naming the field, and nothing changes', async () => {
    const before = await adminList();
    for (const [field, body] of [['name', { ...fresh(), name: 'ethereum' }], ['chain_id', { ...fresh(), chain_id: 1 }], ['name', { ...fresh(), name: 'Base' }]] as const) {
      const r = await call('POST', '/v1/admin/chains', { token: operator.token, body });
      expect({ field, status: r.status, errors: r.body.errors }).toEqual({ field, status: 409, errors: [{ field, message: expect.any(String) }] });
    }
    expect(await adminList()).toEqual(before);
  });
});
