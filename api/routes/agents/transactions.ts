// The Intents API's transaction routes (spec §4.9; reference submitTransaction, signTransaction,
// listTransactions, getTransaction, simulateTransaction, simulateBundle). The agent itself (token
// with the intents_api_enabled claim) or an owner or admin of its organization, while the agent's
// Intents API is on; the rules are the domain's (domain/intents/transactions/).
import { route } from '../../route.ts';
import { idempotencyKeyOf } from '../../input/idempotency-key.ts';
import { MAX_IDEMPOTENCY_KEY } from '../../../domain/intents/transactions/transaction-commands.ts';
import {
  SignedTransactionSchema, SimulationBundleSchema, SimulationSchema, TransactionListSchema, TransactionSchema,
  presentSignedTransaction, presentSimulation, presentTransaction,
} from '../../presenters/transactions.ts';
import {
  agentParams, getTransactionQuery, listTransactionsQuery, simulateBody, simulateBundleBody, submitTransactionBody, transactionParams,
} from './transaction-schema.ts';

const WHO = "No intents_api_enabled claim or the agent's Intents API is off; another agent; a member";

export const transactionRoutes = [
  route({
    method: 'POST', path: '/v1/agents/:agent_id/transactions', tag: 'Transactions', auth: 'principal',
    summary: "Sign a transaction with the agent's key and broadcast it; Idempotency-Key replays within 24 hours",
    params: agentParams, body: submitTransactionBody,
    success: {
      status: 201, description: 'Signed; its broadcast runs in the background (follow it with GET). A repeated Idempotency-Key answers 200 with the stored transaction',
      schema: TransactionSchema, also: [
        { status: 200, description: 'The transaction an earlier request with this Idempotency-Key created' },
        { status: 202, description: "Above the agent's tx_approval_threshold_eth: status awaiting_approval, nothing signed; it is signed and broadcast once a human approves `approval_id` (Location: the approval), and ends rejected otherwise" },
      ],
    },
    errors: {
      403: `${WHO}; a guardrail refused (named in the detail and in \`guardrail\`)`,
      404: 'Agent not found, or the agent has no active signing key',
      409: 'A request with this Idempotency-Key is still being signed',
      422: 'simulate_first: the simulation reverted (revert_reason) — nothing signed; or the Idempotency-Key was used for a different transaction',
      503: "The chain's node cannot be reached, or the chain has no rpc_url",
    },
    handler: async ({ ctx, params, body, action, services: s }) => {
      const key = idempotencyKeyOf(ctx, MAX_IDEMPOTENCY_KEY);
      const r = body.kind === 'family'
        ? await s.familyTransactions.submit(action, params.agent_id, body.req, key, 'submit')
        : await s.transactions.submit(action, params.agent_id, body.req, key, 'submit');
      if (r.replayed) ctx.state.successStatus = 200;
      else if (r.tx.status === 'awaiting_approval' && r.tx.approval_id) {
        ctx.state.successStatus = 202;
        ctx.set('Location', `/v1/approvals/${r.tx.approval_id}`);
      }
      return presentTransaction(r.tx, true);
    },
  }),
  route({
    method: 'POST', path: '/v1/agents/:agent_id/transactions/sign', tag: 'Transactions', auth: 'principal',
    summary: "Sign a transaction with the agent's key without broadcasting it (status sign_only); the guardrails apply and it counts towards the day's limits",
    params: agentParams, body: submitTransactionBody,
    success: { status: 200, description: 'The signed transaction, for the caller to send', schema: SignedTransactionSchema },
    errors: {
      403: `${WHO}; a guardrail refused`, 404: 'Agent not found, or the agent has no active signing key',
      409: 'A request with this Idempotency-Key is still being signed', 422: 'simulate_first: the simulation reverted; or the Idempotency-Key was reused',
      503: "The chain's node cannot be reached (to fill in the nonce, gas or fees)",
    },
    handler: async ({ ctx, params, body, action, services: s }) => {
      const key = idempotencyKeyOf(ctx, MAX_IDEMPOTENCY_KEY);
      const r = body.kind === 'family'
        ? await s.familyTransactions.submit(action, params.agent_id, body.req, key, 'sign_only')
        : await s.transactions.submit(action, params.agent_id, body.req, key, 'sign_only');
      return presentSignedTransaction(r.tx);
    },
  }),
  route({
    method: 'GET', path: '/v1/agents/:agent_id/transactions', tag: 'Transactions', auth: 'principal',
    summary: "The agent's transactions, newest first (signed_tx only with include_signed_tx=true)",
    params: agentParams, query: listTransactionsQuery,
    success: { status: 200, description: 'The transactions', schema: TransactionListSchema },
    errors: { 403: WHO, 404: 'Agent not found' },
    handler: async ({ params, query, action, services: s }) => ({
      transactions: (await s.transactions.list(action, params.agent_id, query.limit)).map((t) => presentTransaction(t, query.include_signed_tx)),
    }),
  }),
  route({
    method: 'GET', path: '/v1/agents/:agent_id/transactions/:tx_id', tag: 'Transactions', auth: 'principal',
    summary: 'One transaction and where it is: pending, signed, broadcast, confirmed or failed (signed_tx only with include_signed_tx=true)',
    params: transactionParams, query: getTransactionQuery,
    success: { status: 200, description: 'The transaction', schema: TransactionSchema },
    errors: { 403: WHO, 404: 'Agent or transaction not found' },
    handler: async ({ params, query, action, services: s }) =>
      presentTransaction(await s.transactions.get(action, params.agent_id, params.tx_id), query.include_signed_tx),
  }),
  route({
    method: 'POST', path: '/v1/agents/:agent_id/transactions/simulate', tag: 'Transactions', auth: 'principal', billable: 'simulate_transaction',
    summary: "Run a transaction against the chain as the agent's address, without signing: gas, balance changes, revert reason",
    params: agentParams, body: simulateBody,
    success: { status: 200, description: 'The simulation (status success, reverted or error)', schema: SimulationSchema },
    errors: { 403: WHO, 404: 'Agent not found, or the agent has no active signing key', 503: "The chain's node cannot be reached" },
    handler: async ({ params, body, action, services: s }) => presentSimulation(await s.simulations.simulate(action, params.agent_id, body)),
  }),
  route({
    method: 'POST', path: '/v1/agents/:agent_id/transactions/simulate-bundle', tag: 'Transactions', auth: 'principal', billable: 'simulate_transaction',
    summary: 'Simulate up to 20 transactions in order on one chain, each on the state the previous ones left',
    params: agentParams, body: simulateBundleBody,
    success: { status: 200, description: 'One simulation per transaction, in order', schema: SimulationBundleSchema },
    errors: { 403: WHO, 404: 'Agent not found, or the agent has no active signing key', 503: "The chain's node cannot be reached" },
    handler: async ({ params, body, action, services: s }) =>
      ({ simulations: (await s.simulations.simulateBundle(action, params.agent_id, body.transactions)).map(presentSimulation) }),
  }),
];
