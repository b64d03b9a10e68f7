// Who an HTTP connection acts as: `Authorization: Bearer <ocv_ agent key | agent JWT>` on the
// request that opens the session. A key is exchanged at once (X-Agent-ID, else VAULT_AGENT_ID,
// names the agent when sent); a JWT must name an agent and is checked by the API
// (GET /v1/agents/me). People's keys and tokens are refused: the tools act as an agent.
// X-Vault-ID picks the connection's default vault (else VAULT_ID).
import type { IncomingHttpHeaders } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from './api-error.ts';
import type { McpConfig } from './config.ts';
import { AGENT_KEY_PREFIX, AgentAuth, agentIdOfJwt } from './credentials.ts';
import { sendJson } from './http-json.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,4096})$/;
const WANTED = 'send Authorization: Bearer <ocv_ agent key or agent access token>';

/** A refusal of the HTTP layer, answered as problem details with this status. */
export class HttpRefusal extends Error {
  readonly status: number;
  readonly detail: string;

  constructor(status: number, detail: string) {
    super(detail);
    this.status = status;
    this.detail = detail;
  }
}

export type ConnectionAuth = { auth: AgentAuth; vaultId?: string };

/** The bearer credential of a request (401 when missing or malformed). */
export function bearerOf(headers: IncomingHttpHeaders): string {
  const header = headers.authorization;
  if (!header) throw new HttpRefusal(401, `Missing Authorization header: ${WANTED}`);
  const m = BEARER.exec(header);
  if (!m) throw new HttpRefusal(401, `Malformed Authorization header: ${WANTED}`);
  return m[1]!;
}

/** A digest of the credential, so a session can tell its own bearer from another without keeping it. */
export const credentialDigest = (bearer: string): Buffer => createHash('sha256').update(bearer).digest();

export function sameCredential(digest: Buffer, bearer: string): boolean {
  return timingSafeEqual(digest, credentialDigest(bearer));
}

function optionalUuid(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string' || !UUID.test(v)) throw new HttpRefusal(400, `${name}: must be a UUID`);
  return v.toLowerCase();
}

/** The API's refusal as the HTTP layer's: its 401 stays a 401; an unreachable API is a 502. */
function refusalOf(e: unknown): HttpRefusal {
  if (e instanceof ApiError) {
    if (e.status === 401 || e.status === 403) return new HttpRefusal(401, e.problem.detail || 'The API refused these credentials');
    return new HttpRefusal(502, `The vault API answered ${e.status}: ${e.problem.detail}`);
  }
  return new HttpRefusal(502, 'The vault API could not be asked about these credentials');
}

export async function authenticateConnection(config: McpConfig, headers: IncomingHttpHeaders, bearer: string): Promise<ConnectionAuth> {
  const vaultId = optionalUuid(headers, 'x-vault-id') ?? config.vaultId;
  if (bearer.startsWith(AGENT_KEY_PREFIX)) {
    const auth = new AgentAuth(config.apiUrl, { kind: 'key', apiKey: bearer, agentId: optionalUuid(headers, 'x-agent-id') ?? config.agentId });
    try { await auth.token(); } catch (e) { throw refusalOf(e); }
    return { auth, vaultId };
  }
  if (!agentIdOfJwt(bearer)) {
    throw new HttpRefusal(401, `Only an agent's credentials are accepted (a person's key or token is not): ${WANTED}`);
  }
  try { await sendJson(config.apiUrl, 'GET', '/v1/agents/me', { bearer }); } catch (e) { throw refusalOf(e); }
  return { auth: new AgentAuth(config.apiUrl, { kind: 'jwt', token: bearer }), vaultId };
}
