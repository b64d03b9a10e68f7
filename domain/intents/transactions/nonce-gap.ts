// Closing a gap in a sender's nonces. When a node refuses one of an agent's transactions for good
// (insufficient funds, say), its nonce is never used, and every later transaction of that sender
// would wait behind it forever. The later ones that no node has seen yet are renumbered onto the
// nonces the node expects next: each is signed again with the agent's key, same fields, new
// nonce, new hash (the old bytes were never accepted anywhere, so they cannot be mined as well).
// A later transaction a node already holds cannot be renumbered without risking that both are
// mined: then the sender is stuck, and its waiting rows say so in their error_message.
// Only transactions the service numbered itself move: one whose nonce its request chose keeps it
// (the sender then waits, and says so). Runs under the sender's nonce lock (nonce.ts), so the api
// does not number a new transaction while the gap is being closed.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Address, Hex } from 'viem';
import type { ChainRpc } from '../../chains/chain-rpc.ts';
import type { AgentSigner } from '../signing-keys/signer.ts';
import type { TransactionFields } from '../evm-transaction.ts';
import { buildTransaction, signedTransaction } from '../evm-transaction.ts';
import { digestBytes } from '../signing/sign-intents.ts';
import { loadAgent } from '../../agents/agent-repository.ts';
import { endTransactionWithoutEffect } from './transaction-ending.ts';
import type { TransactionRow } from './transaction-repository.ts';
import { lockSender, noteWaiting, renumberTransaction, unsentOfSender } from './sender-repository.ts';

export type NonceGapDeps = { em: () => EntityManager; rpc: ChainRpc; signer: AgentSigner };

/** The transaction's own fields with another nonce. */
function fieldsWithNonce(t: TransactionRow, nonce: number): TransactionFields {
  const base = { to: t.to_address as Address, value: t.value_wei, data: (t.data ?? undefined) as Hex | undefined, nonce, gas_limit: t.gas_limit! };
  return t.tx_type === 0
    ? { ...base, tx_type: 0, gas_price: t.gas_price! }
    : { ...base, tx_type: 2, max_fee_per_gas: t.max_fee_per_gas!, max_priority_fee_per_gas: t.max_priority_fee_per_gas! };
}

export class NonceGaps {
  private readonly d: NonceGapDeps;

  constructor(deps: NonceGapDeps) {
    this.d = deps;
  }

  /**
   * Renumbers the sender's unsent transactions onto the nonces the node expects next. Returns
   * how many were renumbered; 0 when there was no gap (or the sender is stuck, noted on its rows).
   */
  async close(chainId: number, from: string): Promise<number> {
    const endpoint = await this.d.rpc.endpointOf(chainId);
    return this.d.em().transactional(async (tx) => {
      await lockSender(tx, chainId, from);
      const waiting = await unsentOfSender(tx, chainId, from);
      if (waiting.length === 0) return 0;
      let next = await this.d.rpc.pendingNonce(chainId, from as Address, endpoint);
      if (waiting.every((t, i) => t.nonce === next + i)) return 0; // no gap
      const chosen = waiting.find((t) => t.nonce_chosen);
      if (chosen) {
        await noteWaiting(tx, waiting.map((t) => t.id), `waiting: the sender's next nonce is ${next}, and transaction ${chosen.id} keeps nonce ${chosen.nonce} `
          + 'as its request asked, so the transactions waiting are not renumbered; they go out once the nonces before them are used');
        return 0;
      }
      const held = [];
      for (const t of waiting) if (await this.d.rpc.transactionKnown(chainId, t.tx_hash as Hex)) held.push(t);
      if (held.length > 0) {
        await noteWaiting(tx, waiting.map((t) => t.id), `waiting: the sender's nonce ${next} is missing (a transaction was refused) and the node already holds `
          + `nonce ${held[0]!.nonce}, so the transactions after the gap cannot be renumbered; they go out once nonce ${next} is used`);
        return 0;
      }
      const first = waiting[0]!;
      const agent = await loadAgent(tx, first.org_id, first.agent_id).catch(() => null);
      const key = agent ? await this.d.signer.activeKey(agent, 'ethereum').catch(() => null) : null;
      if (!key || key.address.toLowerCase() !== from.toLowerCase()) {
        // The key that signed them is no longer the agent's: nothing can renumber them.
        for (const t of waiting) {
          await endTransactionWithoutEffect(tx, t.id, ['signed'], 'A transaction before it was refused, and its signing key is no longer active, so it could not be renumbered; submit it again');
        }
        return 0;
      }
      let renumbered = 0;
      for (const t of waiting) {
        if (t.nonce !== next) {
          const unsigned = buildTransaction(fieldsWithNonce(t, next), chainId);
          const signed = signedTransaction(unsigned, await this.d.signer.signWith(key, digestBytes(unsigned.digest)));
          if (await renumberTransaction(tx, t.id, t.nonce!, { nonce: next, ...signed })) renumbered++;
        }
        next++;
      }
      return renumbered;
    });
  }
}
