// Authenticated requests to our own /v1 API as the agent. A request the API refuses for the
// token itself (401, or a 403 saying the token's scopes are stale or revoked, as the published
// client reads it) is sent once more with a freshly exchanged token.
import { ApiError } from './api-error.ts';
import type { AgentAuth } from './credentials.ts';
import { sendJson, type JsonRequest } from './http-json.ts';

const STALE_TOKEN = /no scopes|scopes do not cover|token has been revoked/i;

function needsNewToken(e: unknown): boolean {
  if (!(e instanceof ApiError)) return false;
  return e.status === 401 || (e.status === 403 && STALE_TOKEN.test(e.problem.detail));
}

export class ApiClient {
  readonly apiUrl: string;
  readonly auth: AgentAuth;

  constructor(apiUrl: string, auth: AgentAuth) {
    this.apiUrl = apiUrl;
    this.auth = auth;
  }

  async request<T>(method: string, path: string, req: Omit<JsonRequest, 'bearer'> = {}): Promise<T> {
    const token = await this.auth.token();
    try {
      return await sendJson<T>(this.apiUrl, method, path, { ...req, bearer: token });
    } catch (e) {
      if (!needsNewToken(e)) throw e;
      // A 401 means the request was refused before anything was done: sending it again is safe.
      const fresh = await this.auth.renew(token);
      if (!fresh) throw e;
      return sendJson<T>(this.apiUrl, method, path, { ...req, bearer: fresh });
    }
  }
}
