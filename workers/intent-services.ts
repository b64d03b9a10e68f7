// The Intents API's objects, built the same way in the api process (routes) and the worker
// (automation steps that sign and submit): one signer over the KMS, one JSON-RPC client for the
// chains, the simulation provider and the commands.
import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../domain/crypto/kms/kms.ts';
import type { HotReads } from '../db/hot-reads.ts';
import type { Logger } from '../domain/log.ts';
import type { ActionAudit } from '../domain/audit/action-audit.ts';
import { AgentSigner } from '../domain/intents/signing-keys/signer.ts';
import { ChainRpc } from '../domain/chains/chain-rpc.ts';
import { findChain } from '../domain/chains/chain-repository.ts';
import { SignCommands } from '../domain/intents/signing/sign-commands.ts';
import { RpcSimulationProvider } from '../domain/intents/transactions/simulation/rpc-simulation.ts';
import { SimulationCommands } from '../domain/intents/transactions/simulation-commands.ts';
import { TransactionCommands } from '../domain/intents/transactions/transaction-commands.ts';
import { TransactionsClient } from '../domain/intents/transactions/client.ts';
import { FamilyTransactionCommands } from '../domain/intents/families/family-transaction-commands.ts';
import { ChainFamilies } from '../domain/intents/families/family-registry.ts';
import { FamilySignCommands } from '../domain/intents/families/family-sign-commands.ts';
import { HeldActionApprovals } from '../domain/approvals/held-action-approvals.ts';
import { ApprovalsClient } from '../domain/approvals/client.ts';

export type IntentServices = {
  intents: SignCommands; transactions: TransactionCommands; familyTransactions: FamilyTransactionCommands; familySigning: FamilySignCommands; simulations: SimulationCommands; chainRpc: ChainRpc;
};

export function intentServices(d: {
  db: () => EntityManager; hot: HotReads; kms: Kms; audit: ActionAudit; temporal: Client; log: Logger; rpcOverrides: ReadonlyMap<string, string>;
}): IntentServices {
  const signer = new AgentSigner({ db: d.db, kms: d.kms });
  const chainRpc = new ChainRpc({ chainById: (chainId) => findChain(d.db(), { by: 'chain_id', chainId }), rpcOverrides: d.rpcOverrides });
  const simulations = new SimulationCommands({ db: d.db, provider: new RpcSimulationProvider(chainRpc) });
  // A transaction above its agent's approval threshold waits on an approval of its own (issue 31 §4).
  const heldApprovals = new HeldActionApprovals(new ApprovalsClient(d.temporal, d.log));
  const client = new TransactionsClient(d.temporal, d.log);
  const familyTransactions = new FamilyTransactionCommands({
    db: d.db, hot: d.hot, kms: d.kms, audit: d.audit, client, families: new ChainFamilies({ rpcOverrides: d.rpcOverrides }),
  });
  return {
    chainRpc,
    simulations,
    intents: new SignCommands({ db: d.db, hot: d.hot, signer, audit: d.audit }),
    transactions: new TransactionCommands({
      db: d.db, hot: d.hot, signer, rpc: chainRpc, audit: d.audit, simulations, client,
      openApproval: (tx, a) => heldApprovals.open(tx, a),
    }),
    // Bitcoin and Solana (issue 32): the same routes, the families' own building and signing.
    familySigning: new FamilySignCommands({
      db: d.db, kms: d.kms, audit: d.audit, xrpSignOnly: async (ctx, agentId, req) => (await familyTransactions.submit(ctx, agentId, req, null, 'sign_only')).tx,
    }),
    familyTransactions,
  };
}
