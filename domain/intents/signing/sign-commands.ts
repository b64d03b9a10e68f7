// POST /v1/agents/{agent_id}/sign (spec §4.9 unified sign; reference signIntent): an agent signs
// an EIP-191 message, EIP-712 typed data, a raw digest or an EVM transaction (types 0 to 4) with
// its own signing key, without ever seeing the key. Sign only: nothing is broadcast and nothing is
// looked up on a chain (submitting transactions is POST …/transactions).
// Who may sign: the agent itself or an owner or admin, while its Intents API is on (intents-access.ts).
// Per intent, the agent's switches (set by humans, PATCH /v1/agents/{id}): personal_sign needs
// message_signing_enabled (on by default), eip712_digest needs raw_signing_enabled (off by
// default: blind signing); typed_data is signed for every domain unless the agent's
// eip712_default_policy is `deny`, then only for domains its eip712_domain_allowlist names
// (eip712-domains.ts).
// Every signature is audited (`agent.sign`: intent, chain, the hashes; never a key, never the
// message) before it is returned; a transaction also emits `agent.transaction.signed`.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import type { AgentSigner } from '../signing-keys/signer.ts';
import { callerOf, subjectOf } from '../../auth/principal.ts';
import type { AgentRow } from '../../agents/agent-repository.ts';
import type { HotReads } from '../../../db/hot-reads.ts';
import { signingAgent } from './signing-agent.ts';
import { emitEventAlone } from '../../events/outbox.ts';
import { forbidden } from '../../errors.ts';
import { HOW_TO_ENABLE, authorizeIntents, chainKeyOf, evmChainOf } from '../intents-access.ts';
import { checkSigningKeyPath } from '../transactions/sender-address.ts';
import { checkEip712Domain } from './eip712-domains.ts';
import { digestBytes, prepareIntent, signedIntent, type PreparedIntent, type SignIntentInput, type SignedIntent } from './sign-intents.ts';

export type SignDeps = { db: () => EntityManager; hot: HotReads; signer: AgentSigner; audit: ActionAudit };

/** The answer: the signed facts, the chain's name and the signer's address. */
export type SignResult = SignedIntent & { chain: string; chainId: number; from: string };



export class SignCommands {
  private readonly d: SignDeps;

  constructor(deps: SignDeps) {
    this.d = deps;
  }

  async sign(ctx: ActionContext, agentId: string, input: SignIntentInput): Promise<SignResult> {
    const principal = callerOf(ctx);
    const { agent, key: keyRow, chain: chainRow } = await signingAgent(this.d.hot, principal.orgId, agentId, chainKeyOf(input.chain));
    await authorizeIntents(() => this.d.db(), principal, agent);
    allowIntent(agent, input);
    checkSigningKeyPath(agent.id, input.signing_key_path);
    const chain = evmChainOf(input.chain, chainRow);
    const prepared = prepareIntent(input, chain.chainId);
    if (prepared.kind === 'typed_data') checkEip712Domain(agent, prepared.domain);
    const sig = await this.d.signer.signWith(await this.d.signer.activeKey(agent, 'ethereum', keyRow), digestBytes(prepared.digest));
    const signed = signedIntent(prepared, sig);
    const result: SignResult = { ...signed, chain: chain.name, chainId: chain.chainId, from: sig.address };
    // The event and the audit record are independent writes: one round trip's wait, not two.
    await Promise.all([
      prepared.kind === 'transaction' ? emitEventAlone(this.d.hot, principal.orgId, 'agent.transaction.signed', transactionFacts(agent.id, result, prepared, subjectOf(principal))) : undefined,
      this.d.audit.record(ctx, 'agent.sign', {
        resourceType: 'agent', resourceId: agent.id,
        details: { ...auditFacts(result, prepared), key_id: sig.keyId, key_version: sig.keyVersion },
      }),
    ]);
    return result;
  }
}

/** The agent's per-intent switches. */
function allowIntent(agent: AgentRow, input: SignIntentInput): void {
  if (input.intent_type === 'personal_sign' && !agent.message_signing_enabled) {
    throw forbidden(`message_signing_enabled: EIP-191 message signing (personal_sign) is off for this agent (${HOW_TO_ENABLE})`);
  }
  if (input.intent_type === 'eip712_digest' && !agent.raw_signing_enabled) {
    throw forbidden(`raw_signing_enabled: signing a raw digest (eip712_digest) is blind signing and is off for this agent (${HOW_TO_ENABLE})`);
  }
}

/** What the audit log keeps of a signature: the intent, the chain, the hashes and the signer. */
function auditFacts(r: SignResult, p: PreparedIntent): Record<string, unknown> {
  const facts: Record<string, unknown> = {
    intent_type: r.intentType, chain: r.chain, chain_id: r.chainId, address: r.from, signed_digest: p.digest,
  };
  if (r.messageHash) facts.message_hash = r.messageHash;
  if (r.typedDataHash) facts.typed_data_hash = r.typedDataHash;
  if (p.kind === 'transaction') Object.assign(facts, { tx_hash: r.txHash, tx_type: r.txType, to: p.tx.tx.to ?? null, nonce: p.tx.tx.nonce });
  return facts;
}

/** The `agent.transaction.signed` event: what was signed, never the signed bytes. */
function transactionFacts(agentId: string, r: SignResult, p: PreparedIntent & { kind: 'transaction' }, actor: string): Record<string, unknown> {
  const t = p.tx.tx;
  return {
    agent_id: agentId, chain: r.chain, chain_id: r.chainId, from: r.from, to: t.to ?? null, nonce: t.nonce, tx_type: r.txType,
    tx_hash: r.txHash, value_wei: (t.value ?? 0n).toString(), status: 'sign_only', actor,
  };
}
