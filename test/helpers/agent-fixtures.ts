// Shared fixtures of the agent integration tests.
import { randomUUID } from 'node:crypto';
import { call, type Account, type Res } from './api.ts';

export const OCV_KEY = /^ocv_[A-Za-z0-9_-]{43}$/;


export type Agent = { id: string; apiKey: string; body: any };

export async function registerAgent(owner: Account, body: Record<string, unknown> = {}): Promise<Agent> {
  const r = await call('POST', '/v1/agents', { token: owner.token, body: { name: `bot-${randomUUID().slice(0, 6)}`, ...body } });
  expect(r.status).toBe(201);
  return { id: r.body.agent_id, apiKey: r.body.api_key, body: r.body };
}

export const agentToken = (apiKey: string, agentId?: string) =>
  call('POST', '/v1/auth/agent-token', { body: { api_key: apiKey, ...(agentId !== undefined ? { agent_id: agentId } : {}) } });

export async function agentJwt(a: Agent): Promise<string> {
  const r = await agentToken(a.apiKey, a.id);
  expect(r.status).toBe(200);
  return r.body.access_token;
}

export async function createVault(a: Account, name = 'agent-vault'): Promise<string> {
  const r = await call('POST', '/v1/vaults', { token: a.token, body: { name } });
  expect(r.status).toBe(201);
  return r.body.id;
}

export async function putSecret(token: string, vaultId: string, path: string, value: string, type?: string): Promise<Res> {
  return call('PUT', `/v1/vaults/${vaultId}/secrets/${path}`, { token, body: { value, ...(type ? { type } : {}) } });
}
export const readSecret = (token: string, vaultId: string, path: string) => call('GET', `/v1/vaults/${vaultId}/secrets/${path}`, { token });

export async function grantAgent(owner: Account, vaultId: string, agentId: string, pattern: string, permissions: string[]): Promise<string> {
  const r = await call('POST', `/v1/vaults/${vaultId}/policies`, {
    token: owner.token, body: { secret_path_pattern: pattern, principal_type: 'agent', principal_id: agentId, permissions },
  });
  expect(r.status).toBe(201);
  return r.body.id;
}

export const patchAgent = (owner: Account, id: string, body: unknown) => call('PATCH', `/v1/agents/${id}`, { token: owner.token, body });

export async function auditFor(owner: Account, action: string, resourceId: string): Promise<any[]> {
  const r = await call('GET', `/v1/audit/events?action=${action}&limit=100`, { token: owner.token });
  expect(r.status).toBe(200);
  return r.body.events.filter((e: any) => e.resource_id === resourceId);
}
