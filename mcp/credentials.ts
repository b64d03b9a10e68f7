// The agent's credentials and the access token they give. An `ocv_` key is exchanged at
// POST /v1/auth/agent-token for a short-lived JWT, exchanged again shortly before that expires
// (60 s, or half the lifetime for short ones), and again when the API says the token no longer
// works (a revocation after a policy or scope change). A static agent JWT is used as it is.
import { sendJson } from './http-json.ts';

export const AGENT_KEY_PREFIX = 'ocv_';
export const REFRESH_MARGIN_MS = 60_000;

export type AgentCredential = { kind: 'key'; apiKey: string; agentId?: string } | { kind: 'jwt'; token: string };

type TokenAnswer = { access_token: string; expires_in: number; agent_id: string; vault_ids: string[] };

const AGENT_SUBJECT = /^agent:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** The claims of a JWT, read without verifying it (the API verifies; this only routes). */
function claimsOf(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    return claims && typeof claims === 'object' ? claims as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

/** The agent id in a JWT's subject (`agent:<uuid>`); undefined for anything else, a person's token included. */
export function agentIdOfJwt(token: string): string | undefined {
  const sub = claimsOf(token)?.sub;
  return typeof sub === 'string' ? AGENT_SUBJECT.exec(sub)?.[1]?.toLowerCase() : undefined;
}

export class AgentAuth {
  private readonly apiUrl: string;
  private readonly credential: AgentCredential;
  private readonly now: () => number;
  private current: { token: string; refreshAt: number } | undefined;
  private inFlight: Promise<string> | undefined;
  private knownAgentId: string | undefined;

  constructor(apiUrl: string, credential: AgentCredential, now: () => number = Date.now) {
    this.apiUrl = apiUrl;
    this.credential = credential;
    this.now = now;
    if (credential.kind === 'jwt') this.knownAgentId = agentIdOfJwt(credential.token);
    else this.knownAgentId = credential.agentId;
  }

  /** Whether a refused token can be replaced (a key can be exchanged again; a static JWT cannot). */
  get renewable(): boolean {
    return this.credential.kind === 'key';
  }

  /** A token to send now: the current one, or a fresh one when it is close to expiry. */
  async token(): Promise<string> {
    if (this.credential.kind === 'jwt') return this.credential.token;
    if (this.current && this.now() < this.current.refreshAt) return this.current.token;
    return this.exchange();
  }

  /**
   * After the API refused `stale`: a new token, unless the credential cannot be renewed. When a
   * concurrent call already replaced `stale`, its replacement is used rather than a second exchange.
   */
  async renew(stale: string): Promise<string | undefined> {
    if (this.credential.kind === 'jwt') return undefined;
    if (this.current && this.current.token !== stale && this.now() < this.current.refreshAt) return this.current.token;
    this.current = undefined;
    return this.exchange();
  }

  /** The agent these credentials act as (from the key exchange, or the JWT's subject). */
  async agentId(): Promise<string> {
    if (!this.knownAgentId) await this.token();
    return this.knownAgentId!;
  }

  /** One exchange at a time: concurrent callers share it. */
  private exchange(): Promise<string> {
    this.inFlight ??= this.doExchange().finally(() => { this.inFlight = undefined; });
    return this.inFlight;
  }

  private async doExchange(): Promise<string> {
    const c = this.credential as Extract<AgentCredential, { kind: 'key' }>;
    const started = this.now();
    const t = await sendJson<TokenAnswer>(this.apiUrl, 'POST', '/v1/auth/agent-token', {
      body: { api_key: c.apiKey, ...(c.agentId ? { agent_id: c.agentId } : {}) },
    });
    const lifetimeMs = t.expires_in * 1000;
    this.current = { token: t.access_token, refreshAt: started + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2) };
    this.knownAgentId = t.agent_id;
    return t.access_token;
  }
}
