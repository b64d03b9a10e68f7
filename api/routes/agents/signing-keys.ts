// Agents' signing keys (spec §4.7; reference `/v1/agents/{agent_id}/signing-keys*`): every EVM
// chain name or chain_id maps to the agent's one `ethereum` key; `bitcoin` and `solana` (or any
// of their networks) to the family's key. Create, rotate,
// deactivate and export are for the organization's owners and admins; the list is for its humans
// and the agent itself.
import { route } from '../../route.ts';
import { createSigningKeyBody, signingKeyAgentParams, signingKeyParams } from './signing-key-schema.ts';
import {
  SigningKeySchema, SigningKeyListSchema, SigningKeyExportSchema,
  presentSigningKey, presentSigningKeyList, presentSigningKeyExport, SigningKeyBalanceSchema, presentSigningKeyBalance,
} from '../../presenters/signing-keys.ts';

const CHAIN_400 = 'chain: unknown (not a chain family, nor an EVM chain this service knows)';

export const signingKeyRoutes = [
  route({
    method: 'GET', path: '/v1/agents/:agent_id/signing-keys/:chain/balance', tag: 'Signing Keys', auth: 'principal',
    summary: "The native balance of the agent's active key on a network (an EVM chain, or a Bitcoin, Solana, XRP, Cardano or Tron network), from its node",
    params: signingKeyParams,
    success: { status: 200, description: 'The balance', schema: SigningKeyBalanceSchema },
    errors: {
      400: CHAIN_400, 403: "Another agent's key", 404: 'Agent not found, or no active key for this chain',
      503: "The network's node cannot be reached, or none is configured",
    },
    handler: async ({ params, action, services: s }) => presentSigningKeyBalance(await s.keyBalances.balance(action, params.agent_id, params.chain)),
  }),
  route({
    method: 'POST', path: '/v1/agents/:agent_id/signing-keys', tag: 'Signing Keys', auth: 'user',
    summary: 'Provision a signing key for a chain: generated inside the key backend (the HSM with pkcs11); returns the public key and address',
    params: signingKeyAgentParams, body: createSigningKeyBody,
    success: { status: 201, description: 'The new key', schema: SigningKeySchema },
    errors: { 400: CHAIN_400, 403: 'Not an owner or admin', 404: 'Agent not found', 409: 'The agent already has an active key for this chain' },
    handler: async ({ params, body, action, services: s }) => presentSigningKey(await s.signingKeys.create(action, params.agent_id, body.chain)),
  }),
  route({
    method: 'GET', path: '/v1/agents/:agent_id/signing-keys', tag: 'Signing Keys', auth: 'principal',
    summary: "The agent's signing keys, active and retired, newest first (humans of the organization, or the agent itself)",
    params: signingKeyAgentParams,
    success: { status: 200, description: 'The keys', schema: SigningKeyListSchema },
    errors: { 403: "Another agent's keys", 404: 'Agent not found' },
    handler: async ({ params, action, services: s }) => presentSigningKeyList(await s.signingKeys.list(action, params.agent_id)),
  }),
  route({
    method: 'POST', path: '/v1/agents/:agent_id/signing-keys/:chain/rotate', tag: 'Signing Keys', auth: 'user',
    summary: 'Rotate: a new key (key_version + 1, new address) replaces the active one, which is destroyed; emits signing_key.rotated',
    params: signingKeyParams,
    success: { status: 200, description: 'The new key', schema: SigningKeySchema },
    errors: { 400: CHAIN_400, 403: 'Not an owner or admin', 404: 'Agent not found, or no active key for this chain', 409: 'The key changed during the rotation' },
    handler: async ({ params, action, services: s }) => presentSigningKey(await s.signingKeys.rotate(action, params.agent_id, params.chain)),
  }),
  route({
    method: 'DELETE', path: '/v1/agents/:agent_id/signing-keys/:chain', tag: 'Signing Keys', auth: 'user',
    summary: 'Deactivate the active key for a chain: it never signs again (destroyed in the key backend); its record stays',
    params: signingKeyParams,
    success: { status: 204, description: 'Deactivated' },
    errors: { 400: CHAIN_400, 403: 'Not an owner or admin', 404: 'Agent not found, or no active key for this chain' },
    handler: async ({ params, action, services: s }) => s.signingKeys.deactivate(action, params.agent_id, params.chain),
  }),
  route({
    method: 'POST', path: '/v1/agents/:agent_id/signing-keys/:chain/export', tag: 'Signing Keys', auth: 'user',
    summary: "Export the active key's private key (header X-Auth-Confirm: the caller's password; owners and admins; audited). Local key backend only",
    params: signingKeyParams,
    success: { status: 200, description: 'The key with its private key', schema: SigningKeyExportSchema },
    errors: {
      400: CHAIN_400,
      401: 'Wrong or missing password in X-Auth-Confirm',
      403: 'Not an owner or admin, or an account without a password',
      404: 'Agent not found, or no active key for this chain',
      409: 'key_not_extractable: the key lives in the HSM (pkcs11) and never leaves it',
      429: 'Too many wrong passwords for this account: wait Retry-After seconds',
    },
    handler: async ({ ctx, params, action, services: s }) =>
      presentSigningKeyExport(await s.signingKeys.export(action, params.agent_id, params.chain, ctx.get('x-auth-confirm') || undefined)),
  }),
];
