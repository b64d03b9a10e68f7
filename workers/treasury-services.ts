// The Safe treasuries' objects for the api process: the commands, one JSON-RPC client for the
// chains (reading Safe nonces), the agents' signer (an agent's signature when it omits one) and
// the area's Temporal client (expiry timers and executions).
import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../domain/crypto/kms/kms.ts';
import type { Logger } from '../domain/log.ts';
import type { ActionAudit } from '../domain/audit/action-audit.ts';
import type { ApiServices } from '../api/services.ts';
import { AgentSigner } from '../domain/intents/signing-keys/signer.ts';
import { ChainRpc } from '../domain/chains/chain-rpc.ts';
import { findChain } from '../domain/chains/chain-repository.ts';
import { TreasuryCommands } from '../domain/treasury/safe/treasury-commands.ts';
import { AccessRequestCommands } from '../domain/treasury/safe/access-commands.ts';
import { ProposalCommands } from '../domain/treasury/safe/proposal-commands.ts';
import { SafeChain } from '../domain/treasury/safe/safe-chain.ts';
import { SafeTreasuryClient } from '../domain/treasury/safe/client.ts';
import { ApprovalsClient } from '../domain/approvals/client.ts';
import { WalletDigestSigner } from '../domain/treasury/wallets/wallet-digest-signer.ts';
import type { StepUp } from '../domain/accounts/step-up.ts';

export function safeTreasuryServices(d: {
  db: () => EntityManager; kms: Kms; audit: ActionAudit; stepUp: StepUp; temporal: Client; log: Logger; rpcOverrides: ReadonlyMap<string, string>;
}): Pick<ApiServices, 'treasuries' | 'treasuryAccess' | 'treasuryProposals'> {
  const waits = new ApprovalsClient(d.temporal, d.log);
  const rpc = new ChainRpc({ chainById: (chainId) => findChain(d.db(), { by: 'chain_id', chainId }), rpcOverrides: d.rpcOverrides });
  return {
    treasuries: new TreasuryCommands({ db: d.db, audit: d.audit }),
    treasuryAccess: new AccessRequestCommands({ db: d.db, audit: d.audit, waits }),
    treasuryProposals: new ProposalCommands({
      db: d.db, audit: d.audit, safe: new SafeChain(rpc), signer: new AgentSigner({ db: d.db, kms: d.kms }), client: new SafeTreasuryClient(d.temporal, d.log),
      wallets: new WalletDigestSigner({ db: d.db, kms: d.kms, stepUp: d.stepUp }), waits,
    }),
  };
}
