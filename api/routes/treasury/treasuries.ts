// Multisig treasuries on a Safe (spec §4.7; reference createTreasury … removeTreasurySigner).
// Any principal may read; managing is for humans (the domain answers an agent 403 saying why).
import { route } from '../../route.ts';
import { createTreasuryBody, signerBody, signerParams, treasuryParams, updateTreasuryBody } from './treasuries-schema.ts';
import {
  TreasuryListSchema, TreasurySchema, TreasurySignerSchema, presentSigner, presentTreasury, presentTreasuryList,
} from '../../presenters/treasuries.ts';

const MANAGERS = "An agent, or a human who is neither the treasury's creator nor an owner or admin";

export const treasuryRoutes = [
  route({
    method: 'POST', path: '/v1/treasury', tag: 'Treasury', auth: 'principal',
    summary: 'Create a multisig treasury: a deployed Safe on one of the EVM chains, its threshold and signers (users or agents with their addresses); humans only',
    body: createTreasuryBody,
    success: { status: 201, description: 'The treasury', schema: TreasurySchema },
    errors: { 403: 'Agents cannot create treasuries', 409: 'A treasury for this Safe on this chain already exists' },
    handler: async ({ body, action, services: s }) => presentTreasury(await s.treasuries.create(action, body)),
  }),
  route({
    method: 'GET', path: '/v1/treasury', tag: 'Treasury', auth: 'principal',
    summary: "The organization's treasuries with their signers",
    success: { status: 200, description: 'The treasuries', schema: TreasuryListSchema },
    handler: async ({ action, services: s }) => presentTreasuryList(await s.treasuries.list(action)),
  }),
  route({
    method: 'GET', path: '/v1/treasury/:treasury_id', tag: 'Treasury', auth: 'principal',
    summary: 'One treasury with its signers', params: treasuryParams,
    success: { status: 200, description: 'The treasury', schema: TreasurySchema },
    errors: { 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentTreasury(await s.treasuries.get(action, params.treasury_id)),
  }),
  route({
    method: 'PATCH', path: '/v1/treasury/:treasury_id', tag: 'Treasury', auth: 'principal',
    summary: 'Update the name, threshold (at most the number of signers) or gas payer agent', params: treasuryParams, body: updateTreasuryBody,
    success: { status: 200, description: 'The treasury', schema: TreasurySchema },
    errors: { 403: MANAGERS, 404: 'Not found' },
    handler: async ({ params, body, action, services: s }) => presentTreasury(await s.treasuries.update(action, params.treasury_id, body)),
  }),
  route({
    method: 'DELETE', path: '/v1/treasury/:treasury_id', tag: 'Treasury', auth: 'principal',
    summary: 'Delete a treasury, its signers, access requests and proposals (the Safe on chain is untouched)', params: treasuryParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: MANAGERS, 404: 'Not found' },
    handler: async ({ params, action, services: s }) => { await s.treasuries.remove(action, params.treasury_id); },
  }),
  route({
    method: 'POST', path: '/v1/treasury/:treasury_id/signers', tag: 'Treasury', auth: 'principal',
    summary: 'Add a signer (a user or an agent of the organization, with its address)', params: treasuryParams, body: signerBody,
    success: { status: 201, description: 'The signer', schema: TreasurySignerSchema },
    errors: { 403: MANAGERS, 404: 'Not found', 409: 'The address is already a signer' },
    handler: async ({ params, body, action, services: s }) => presentSigner(await s.treasuries.addSigner(action, params.treasury_id, body)),
  }),
  route({
    method: 'DELETE', path: '/v1/treasury/:treasury_id/signers/:signer_id', tag: 'Treasury', auth: 'principal',
    summary: "Remove a signer; its signatures on open proposals stop counting", params: signerParams,
    success: { status: 204, description: 'Removed' },
    errors: { 403: MANAGERS, 404: 'Treasury or signer not found', 409: 'Fewer signers than the threshold would remain' },
    handler: async ({ params, action, services: s }) => { await s.treasuries.removeSigner(action, params.treasury_id, params.signer_id); },
  }),
];
