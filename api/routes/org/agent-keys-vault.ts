// The organization's reserved vault of agent key handles: its id only (reference getAgentKeysVault).
import { route } from '../../route.ts';
import { AgentKeysVaultSchema, presentAgentKeysVault } from '../../presenters/org.ts';

export const agentKeysVaultRoutes = [
  route({
    method: 'GET', path: '/v1/org/agent-keys-vault', tag: 'Organization', auth: 'user',
    summary: "The id of the organization's __agent-keys vault",
    success: { status: 200, description: 'The vault id', schema: AgentKeysVaultSchema },
    errors: { 404: 'No agent has a signing key or an inline credential yet' },
    handler: async ({ action, services: s }) => presentAgentKeysVault(await s.vaults.agentKeysVaultId(action)),
  }),
];
