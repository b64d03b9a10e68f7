// Safe transaction proposals (reference createTreasuryProposal … executeTreasuryProposal): propose,
// list, get, sign (approve/reject), cancel, execute. Rules in domain/treasury/safe/proposal-commands.ts.
import { route } from '../../route.ts';
import { createProposalBody, proposalListQuery, proposalParams, signProposalBody, treasuryParams } from './treasuries-schema.ts';
import { ProposalListSchema, ProposalSchema, presentProposal, presentProposalList } from '../../presenters/treasuries.ts';

export const treasuryProposalRoutes = [
  route({
    method: 'POST', path: '/v1/treasury/:treasury_id/proposals', tag: 'Treasury Proposals', auth: 'principal',
    summary: "Propose a Safe transaction (a user signer, or an agent with approved access): built on the Safe's current nonce, with its safe_tx_hash",
    params: treasuryParams, body: createProposalBody,
    success: { status: 201, description: 'The proposal', schema: ProposalSchema },
    errors: { 403: 'Neither a user signer nor an agent with approved access', 404: 'Not found', 422: 'The address answers no Safe call', 503: "The chain's node cannot be reached" },
    handler: async ({ params, body, action, services: s }) => presentProposal(await s.treasuryProposals.create(action, params.treasury_id, body)),
  }),
  route({
    method: 'GET', path: '/v1/treasury/:treasury_id/proposals', tag: 'Treasury Proposals', auth: 'principal',
    summary: "The treasury's proposals, newest first; filter by status", params: treasuryParams, query: proposalListQuery,
    success: { status: 200, description: 'The proposals', schema: ProposalListSchema },
    errors: { 404: 'Not found' },
    handler: async ({ params, query: filter, action, services: s }) => presentProposalList(await s.treasuryProposals.list(action, params.treasury_id, filter.status)),
  }),
  route({
    method: 'GET', path: '/v1/treasury/:treasury_id/proposals/:proposal_id', tag: 'Treasury Proposals', auth: 'principal',
    summary: 'One proposal with its signatures', params: proposalParams,
    success: { status: 200, description: 'The proposal', schema: ProposalSchema },
    errors: { 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentProposal(await s.treasuryProposals.get(action, params.treasury_id, params.proposal_id)),
  }),
  route({
    method: 'DELETE', path: '/v1/treasury/:treasury_id/proposals/:proposal_id', tag: 'Treasury Proposals', auth: 'principal',
    summary: 'Cancel a pending or approved proposal (the proposer only)', params: proposalParams,
    success: { status: 204, description: 'Cancelled' },
    errors: { 403: 'Not the proposer', 404: 'Not found', 409: 'Not pending or approved' },
    handler: async ({ params, action, services: s }) => { await s.treasuryProposals.cancel(action, params.treasury_id, params.proposal_id); },
  }),
  route({
    method: 'POST', path: '/v1/treasury/:treasury_id/proposals/:proposal_id/sign', tag: 'Treasury Proposals', auth: 'principal',
    summary: "Approve or reject as a signer. A user sends its EIP-712 signature of the SafeTx, or omits it when its ethereum treasury wallet is its signer address (then X-Auth-Confirm: the password or a rat_ token for treasury_wallet.send); an agent may omit it and the service signs with the agent's provisioned key",
    params: proposalParams, body: signProposalBody,
    success: { status: 200, description: 'The proposal (approved once the approvals of current signers reach the threshold)', schema: ProposalSchema },
    errors: {
      401: "A user signing with its treasury wallet without X-Auth-Confirm, or with a wrong one", 403: 'Not a signer of the treasury',
      404: 'Not found', 409: 'Not pending or approved, expired, or the agent\'s key is not its signer address',
    },
    handler: async ({ ctx, params, body, action, services: s }) => presentProposal(await s.treasuryProposals.sign(action, params.treasury_id, params.proposal_id,
      { ...body, confirm: ctx.get('x-auth-confirm') || undefined })),
  }),
  route({
    method: 'POST', path: '/v1/treasury/:treasury_id/proposals/:proposal_id/execute', tag: 'Treasury Proposals', auth: 'principal',
    summary: "Execute once the threshold is met (humans only): execTransaction is sent by a durable workflow from the gas payer agent's key; the proposal is executing until confirmed",
    params: proposalParams,
    success: { status: 200, description: 'The proposal, now executing (poll it: executed with executed_tx_hash, or failed with error_message)', schema: ProposalSchema },
    errors: { 403: 'An agent, or a human who is neither the creator, a user signer, an owner nor an admin', 404: 'Not found', 409: 'Below threshold, not open, expired, the Safe nonce moved, or no gas payer', 503: "The chain's node cannot be reached" },
    handler: async ({ params, action, services: s }) => presentProposal(await s.treasuryProposals.requestExecution(action, params.treasury_id, params.proposal_id)),
  }),
];
