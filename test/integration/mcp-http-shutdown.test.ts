// Stopping the MCP tool server lets a tool call under way finish, over HTTP and over stdio (issue 30 §5).
// The server reaches the stack's api through a proxy of this file that holds the secret read of
// one tool call until the test lets it go: SIGTERM arrives while the call waits, new connections
// are refused at once, the call is answered with the value once the api answers, and the process
// exits 0 (its stop deadline exits 1). Over stdio the same: the call is answered, then the process ends.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiUrl, closeDb, eventually } from '../helpers/api.ts';
import { putOk } from '../helpers/vault-fixtures.ts';
import { agentEnv, bearer, httpClient, mcpWorld, ok, startHttpMcp, stdioMcp } from '../helpers/mcp-fixtures.ts';

type HoldingProxy = { url: string; held: () => Promise<void>; release: () => void; close: () => Promise<void> };

/** Forwards everything to the api, but holds the first secret read (GET …/secrets/…) until released. */
async function holdingProxy(target: string): Promise<HoldingProxy> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  let arrived!: () => void;
  const held = new Promise<void>((resolve) => { arrived = resolve; });
  let holding = true;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void (async () => {
      if (holding && req.method === 'GET' && /\/secrets\//.test(req.url ?? '')) {
        holding = false;
        arrived();
        await released;
      }
      const headers = Object.fromEntries(Object.entries(req.headers)
        .filter(([k, v]) => typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const r = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
      res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await r.arrayBuffer()));
    })().catch(() => { res.destroy(); }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => held, release,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** True once a brand-new TCP connection to `url` is refused; undefined while it is still taken. */
function freshConnectionRefused(url: string): Promise<true | undefined> {
  return new Promise((resolve) => {
    const req = http.get(new URL('/health', url), { agent: false }, (res) => { res.resume(); resolve(undefined); });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED' ? true : undefined));
  });
}

let proxy: HoldingProxy;
let stdioProxy: HoldingProxy;

beforeAll(async () => {
  proxy = await holdingProxy(apiUrl());
  stdioProxy = await holdingProxy(apiUrl());
});
afterAll(async () => {
  await proxy?.close();
  await stdioProxy?.close();
  await closeDb();
});

test('SIGTERM while a tool call waits on the api: the call is answered, new connections are refused, the process exits 0', async () => {
  const w = await mcpWorld('mcp-stop');
  await putOk(w.owner, w.vaultId, 'app/slow', 'answered-after-sigterm');
  const server = await startHttpMcp({ VAULT_API_URL: proxy.url });
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  try {
    const client = await httpClient(server.url, bearer(w.agent.apiKey, { 'x-agent-id': w.agent.id }));
    const pending = client.callTool({ name: 'get_secret', arguments: { path: 'app/slow' } });
    await proxy.held();
    server.child.kill('SIGTERM');
    await eventually('the server to begin stopping', async () => (server.stderr().includes('"msg":"stopping"') ? true : undefined));
    await eventually('new connections refused', () => freshConnectionRefused(server.url));
    proxy.release();
    expect(ok(await pending).value).toBe('answered-after-sigterm');
    expect(await exited).toBe(0);
  } finally {
    await server.stop();
  }
}, 90_000);

test('SIGTERM while a stdio tool call waits on the api: the call is answered, then the process ends', async () => {
  const w = await mcpWorld('mcp-stop-stdio');
  await putOk(w.owner, w.vaultId, 'app/slow', 'stdio-answered-after-sigterm');
  const mcp = await stdioMcp(agentEnv(w, { VAULT_API_URL: stdioProxy.url }));
  const pid = mcp.pid()!;
  try {
    const pending = mcp.client.callTool({ name: 'get_secret', arguments: { path: 'app/slow' } });
    await stdioProxy.held();
    process.kill(pid, 'SIGTERM');
    await eventually('the server to begin stopping', async () => (mcp.stderr().includes('"msg":"stopping"') ? true : undefined));
    stdioProxy.release();
    expect(ok(await pending).value).toBe('stdio-answered-after-sigterm');
    await eventually('the process to end', async () => { try { process.kill(pid, 0); return undefined; } catch { return true; } });
  } finally {
    await mcp.close();
  }
}, 90_000);
