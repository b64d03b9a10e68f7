// The Streamable HTTP transport (MCP_TRANSPORT=http): `POST|GET|DELETE /mcp` and `GET /health`.
//
// Stateful sessions: the request that initializes a session is authenticated (http-auth.ts) and
// the session keeps its own MCP server with that agent's token, refreshed as it nears expiry, and
// its vault choice. Every later request names the session (Mcp-Session-Id) and must carry the same
// bearer. Stateless mode would exchange the key (an audited event and a new token) on every
// request; sessions live in this process, so more than one replica needs sticky routing.
// Sessions idle for 30 minutes are closed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpConfig } from './config.ts';
import type { McpLogger } from './log.ts';
import { HttpRefusal, authenticateConnection, bearerOf, credentialDigest, sameCredential } from './http-auth.ts';
import { buildMcpServer, toolContext } from './server.ts';

export const MCP_PATH = '/mcp';
const SESSION_IDLE_MS = 30 * 60_000;
const MAX_SESSIONS = 1_000;
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** How long a stop waits for tool calls under way (workers/mcp.ts exits by its own deadline). */
export const DRAIN_MS = 20_000;

type Session = { transport: StreamableHTTPServerTransport; server: McpServer; digest: Buffer; lastSeen: number };

export type HttpMcp = { url: string; port: number; stop(): Promise<void> };

function answer(res: http.ServerResponse, status: number, body: unknown, contentType = 'application/json', headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

function refuse(res: http.ServerResponse, r: HttpRefusal): void {
  const title = http.STATUS_CODES[r.status] ?? 'Error';
  answer(res, r.status, { type: 'about:blank', title, status: r.status, detail: r.detail }, 'application/problem+json',
    r.status === 401 ? { 'www-authenticate': 'Bearer' } : {});
}

const rpcError = (res: http.ServerResponse, status: number, code: number, message: string) =>
  answer(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });

/** The host name of a Host header, lower case, without port or IPv6 brackets; null when absent. */
export function hostNameOf(header: string | undefined): string | null {
  const h = header?.trim().toLowerCase();
  if (!h) return null;
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const name = h.split(':').length === 2 ? h.slice(0, h.lastIndexOf(':')) : h;
  return name.replace(/\.$/, '');
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpRefusal(413, `The request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpRefusal(400, 'The request body is not JSON');
  }
}

export async function startHttp(config: McpConfig, log: McpLogger): Promise<HttpMcp> {
  const sessions = new Map<string, Session>();

  const closeSession = async (id: string) => {
    const s = sessions.get(id);
    sessions.delete(id);
    await s?.server.close().catch(() => {});
  };

  /** A POST without a session id: it must initialize one, with an agent's credentials. */
  async function openSession(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const bearer = bearerOf(req.headers);
    const body = await readJson(req);
    if (!isInitializeRequest(body)) {
      rpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header, and not an initialize request');
      return;
    }
    if (sessions.size >= MAX_SESSIONS) throw new HttpRefusal(503, 'Too many open sessions: try again later');
    const conn = await authenticateConnection(config, req.headers, bearer);
    const agentId = await conn.auth.agentId();
    const server = buildMcpServer(toolContext(config.apiUrl, conn.auth, log, conn.vaultId));
    let session: Session | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session = { transport, server, digest: credentialDigest(bearer), lastSeen: Date.now() };
        sessions.set(id, session);
        log.info('MCP session opened', { session: id, agent_id: agentId });
      },
      onsessionclosed: (id) => { void closeSession(id); },
    });
    transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    if (!session) await server.close(); // the initialize request failed: nothing to keep
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // A name rebound to this address (DNS rebinding) carries its own Host: only ours are answered.
    const host = hostNameOf(req.headers.host);
    if (host === null) throw new HttpRefusal(400, 'A Host header is required');
    if (!config.allowedHosts.includes(host)) throw new HttpRefusal(403, `Host ${host} is not allowed (MCP_ALLOWED_HOSTS)`);
    const path = new URL(req.url ?? '/', 'http://mcp.invalid').pathname;
    if (path === '/health') {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpRefusal(405, 'GET /health');
      answer(res, 200, { status: 'ok', transport: 'streamable-http', sessions: sessions.size });
      return;
    }
    if (path !== MCP_PATH) throw new HttpRefusal(404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    // A browser page on another origin must not drive a local tool server (DNS rebinding).
    const origin = req.headers.origin;
    if (origin && !config.allowedOrigins.includes(origin)) throw new HttpRefusal(403, `Origin ${origin} is not allowed (MCP_ALLOWED_ORIGINS)`);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId !== 'string') {
      if (req.method !== 'POST') throw new HttpRefusal(req.method === 'GET' || req.method === 'DELETE' ? 400 : 405, 'Open a session first: POST an initialize request');
      await openSession(req, res);
      return;
    }
    const session = sessions.get(sessionId);
    if (!session) {
      rpcError(res, 404, -32001, 'Session not found');
      return;
    }
    if (!sameCredential(session.digest, bearerOf(req.headers))) {
      throw new HttpRefusal(401, 'This session was opened with other credentials: send the same Authorization header');
    }
    session.lastSeen = Date.now();
    await session.transport.handleRequest(req, res);
  }

  // Answers under way, but not the event streams (GET), which last as long as their session: a
  // stop lets them finish before it closes the sessions, so a tool call in flight is answered.
  const answering = new Set<http.ServerResponse>();
  let stopping = false;
  let drained: (() => void) | undefined;
  const httpServer = http.createServer((req, res) => {
    res.setHeader('x-content-type-options', 'nosniff'); // every answer, the SDK's included
    if (stopping) res.setHeader('connection', 'close');
    if (req.method !== 'GET') {
      answering.add(res);
      res.once('close', () => {
        answering.delete(res);
        if (answering.size === 0) drained?.();
      });
    }
    route(req, res).catch((e: unknown) => {
      if (e instanceof HttpRefusal) refuse(res, e);
      else {
        log.error('HTTP request failed', { error: e instanceof Error ? e.name : 'unknown' });
        refuse(res, new HttpRefusal(500, 'The tool server failed to handle the request'));
      }
    });
  });

  const sweep = setInterval(() => {
    const idleSince = Date.now() - SESSION_IDLE_MS;
    for (const [id, s] of sessions) if (s.lastSeen < idleSince) void closeSession(id);
  }, 60_000);
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}${MCP_PATH}`;
  log.info('MCP tool server on HTTP', { url, api_url: config.apiUrl });

  return {
    url, port,
    stop: async () => {
      clearInterval(sweep);
      stopping = true;
      // No new connections from here; idle keep-alive ones close now, busy ones after their answer.
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      for (const res of answering) {
        if (!res.headersSent) res.setHeader('connection', 'close');
      }
      if (answering.size > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, DRAIN_MS).unref();
        });
        if (answering.size > 0) log.warn('stopping with tool calls still running', { running: answering.size });
      }
      await Promise.all([...sessions.keys()].map(closeSession));
      httpServer.closeAllConnections();
      await closed;
    },
  };
}
