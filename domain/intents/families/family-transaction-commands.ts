// The Intents API's transactions on the non-EVM families (issue 32): the same routes as EVM
// (transaction-commands.ts hands a request over when its chain is a Bitcoin or Solana network),
// the same order of checks, and the same promises:
//   1. who (intents-access.ts), which network, the agent's key of the family; a repeated
//      Idempotency-Key is answered from the stored row (200);
//   2. the guardrails in the family's unit (family-guardrails.ts: 403 naming the guardrail);
//   3. the family builds the transfer from the chain's facts (coins and fee rate; blockhash) and
//      has it signed ONCE through the KMS; a refusal it can see (insufficient funds, bad fee rate)
//      is a 4xx before anything is signed;
//   4. one database transaction records it with everything it reserves (family-transaction-
//      repository.ts): the day's family spend and count under their caps, and for a submit the
//      coins it spends (a coin another request took first: the transfer is built again without
//      it, up to 3 times; one sender's requests are built one at a time per process);
//      a refusal writes nothing, and the signature is never seen;
//   5. for a submit, the broadcast workflow `tx:<id>` (the EVM one: the broadcaster hands family
//      rows to family-broadcaster.ts), which sends exactly those bytes.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import type { Kms } from '../../crypto/kms/kms.ts';
import { callerOf, subjectOf } from '../../auth/principal.ts';
import { loadAgent } from '../../agents/agent-repository.ts';
import { Problem, conflict, invalidField } from '../../errors.ts';
import { authorizeIntents } from '../intents-access.ts';
import { checkSigningKeyPath } from '../transactions/sender-address.ts';
import { chainProblem } from '../transactions/chain-problems.ts';
import { SenderQueue } from '../transactions/nonce.ts';
import type { TransactionsClient } from '../transactions/client.ts';
import { findByIdempotencyKey, lockIdempotencyKey, releaseStaleIdempotencyKey, type TransactionRow } from '../transactions/transaction-repository.ts';
import { replay, type TransactionMode, type TransactionOutcome } from '../transactions/transaction-commands.ts';
import type { ChainFamilies, ResolvedNetwork } from './family-registry.ts';
import { FamilySigner, type FamilyKey } from './family-signer.ts';
import { checkFamilyGuardrails, dailyLimitOf, familyRefusal, guardrailsOf } from './family-guardrails.ts';
import { DEFAULT_TOKEN_DECIMALS, familyRequestDigest, type FamilyTransactionRequest } from './family-request.ts';
import { FamilyCapRefused, OutpointTaken, recordFamilyTransaction, reservedOutpoints } from './family-transaction-repository.ts';
import { reservedCardanoUtxos } from './cardano/cardano-utxo-repository.ts';
import type { SignedTransfer, TransferIntent } from './chain-family.ts';
import { formatUnits, parseUnits } from './units.ts';

export type FamilyTransactionDeps = { db: () => EntityManager; kms: Kms; families: ChainFamilies; audit: ActionAudit; client: Pick<TransactionsClient, 'startBroadcast'> };

/** Attempts at choosing coins when parallel requests keep taking the chosen ones. */
const COIN_ATTEMPTS = 3;
/** The families whose transfers spend coins (UTxOs) a submit reserves. */
const SPENDS_COINS = new Set(['bitcoin', 'cardano']);

export class FamilyTransactionCommands {
  private readonly d: FamilyTransactionDeps;
  private readonly signer: FamilySigner;
  private readonly senders = new SenderQueue();

  constructor(deps: FamilyTransactionDeps) {
    this.d = deps;
    this.signer = new FamilySigner({ db: deps.db, kms: deps.kms });
  }

  /** Whether `chain` is a network of a family here (the EVM commands take the rest). */
  handles(chain: string | number): boolean {
    return this.d.families.handles(chain);
  }

  async submit(ctx: ActionContext, agentId: string, req: FamilyTransactionRequest, idempotencyKey: string | null, mode: TransactionMode): Promise<TransactionOutcome> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    const agent = await loadAgent(em, principal.orgId, agentId);
    await authorizeIntents(() => em, principal, agent);
    const network = await this.d.families.resolve(em, req.chain);
    const { family, net } = network;
    checkSigningKeyPath(agent.id, req.signingKeyPath);
    if (!family.isAddress(req.to, net)) throw invalidField('to', `must be a ${network.name} address valid on ${net.name}`);
    const intent = this.intentOf(network, req);
    // The recipient's token account is created when it has none, unless the request says no or
    // the agent's ata_allowlist does not name the recipient.
    if (intent.tokenMint !== undefined && req.createRecipientTokenAccount === undefined) {
      const allow = guardrailsOf(agent, 'solana').ata_allowlist;
      intent.createRecipientTokenAccount = allow === undefined || allow.includes(req.to);
    }
    const digest = familyRequestDigest(req, net.name, mode);
    if (idempotencyKey !== null) {
      const prior = await findByIdempotencyKey(em, agent.id, idempotencyKey);
      if (prior) return { tx: replay(prior, digest), replayed: true };
    }
    checkFamilyGuardrails(agent, {
      family: network.name, chain: net.name, to: req.to, amount: intent.amount, tokenMint: req.tokenMint, tokenDecimals: intent.tokenDecimals,
      createsTokenAccount: req.createRecipientTokenAccount === true,
    });
    this.d.families.requireNode(network);
    const key = await this.signer.activeKey(agent, network.name);
    const from = family.addressOf(key.sender.publicKey, net);
    const id = randomUUID();
    const actor = subjectOf(principal);
    const build = async () => {
      for (let attempt = 0; attempt < COIN_ATTEMPTS; attempt++) {
        const signed = await this.signOnce(network, key, from, intent);
        const recorded = await this.record(em, { id, agent, network, from, req, intent, signed, mode, idempotencyKey, digest, actor });
        if (recorded !== null) return recorded;
      }
      return null;
    };
    // One sender's Bitcoin (and Cardano) submits are built one at a time in this process (they would all pick the
    // same coins); across processes a coin taken first makes the transfer be built again. Solana
    // and sign-only transfers reserve no coins and run side by side.
    const row = SPENDS_COINS.has(network.name) && mode === 'submit' ? await this.senders.run(net.chainId, from, build) : await build();
    if (row === null) throw conflict('The coins of this address are being spent by parallel requests; try again shortly');
    if (row === 'replay') {
      const prior = await findByIdempotencyKey(em, agent.id, idempotencyKey!);
      if (!prior) throw conflict('Idempotency-Key: a transaction with this key is being created; retry shortly');
      return { tx: replay(prior, digest), replayed: true };
    }
    await this.d.audit.record(ctx, mode === 'submit' ? 'agent.transaction.submit' : 'agent.transaction.sign', {
      resourceType: 'agent', resourceId: agent.id,
      details: { transaction_id: id, chain: net.name, chain_id: net.chainId, from, to: req.to, amount: req.value, token_mint: req.tokenMint ?? null, tx_hash: row.tx_hash },
    });
    if (mode === 'submit') await this.d.client.startBroadcast({ id, orgId: agent.org_id, agentId: agent.id });
    return { tx: row, replayed: false };
  }

  /** The request in the family's terms: the amount in base units (the token's, with token_mint). */
  private intentOf(network: ResolvedNetwork, req: FamilyTransactionRequest): TransferIntent {
    const token = req.tokenMint !== undefined;
    if (token && network.name !== 'solana') throw invalidField('token_mint', 'is for Solana (SPL) tokens only here');
    if (!token && (req.tokenDecimals !== undefined || req.createRecipientTokenAccount !== undefined)) {
      throw invalidField(req.tokenDecimals !== undefined ? 'token_decimals' : 'create_recipient_token_account', 'needs token_mint');
    }
    if (req.feeRateSatPerVbyte !== undefined && network.name !== 'bitcoin') throw invalidField('fee_rate_sat_per_vbyte', 'is for Bitcoin only');
    if (req.computeUnitPrice !== undefined && network.name !== 'solana') throw invalidField('compute_unit_price', 'is for Solana only');
    if (req.ttl !== undefined && network.name !== 'cardano') throw invalidField('ttl', 'is for Cardano only');
    const decimals = token ? req.tokenDecimals ?? DEFAULT_TOKEN_DECIMALS : network.family.unit.decimals;
    const amount = parseUnits(req.value, decimals, 'value');
    if (amount <= 0n) throw invalidField('value', 'must be more than 0');
    return {
      to: req.to, amount, feeRateSatPerVbyte: req.feeRateSatPerVbyte, tokenMint: req.tokenMint, tokenDecimals: token ? decimals : undefined,
      createRecipientTokenAccount: req.createRecipientTokenAccount, computeUnitPrice: req.computeUnitPrice, ttlSeconds: req.ttl,
    };
  }

  /** The family builds and signs once; chain trouble becomes the API's 503/422 as on EVM. */
  private async signOnce(network: ResolvedNetwork, key: FamilyKey, from: string, intent: TransferIntent): Promise<SignedTransfer> {
    const reserved = network.name === 'bitcoin' ? await reservedOutpoints(this.d.db(), network.net.chainId, from)
      : network.name === 'cardano' ? await reservedCardanoUtxos(this.d.db(), network.net.chainId, from) : new Set<string>();
    try {
      return await network.family.signTransfer(network.net, { publicKey: key.sender.publicKey, address: from }, intent, { reservedOutpoints: reserved }, key.sign);
    } catch (e) {
      throw chainProblem(e);
    }
  }

  /** Step 4; null when a chosen coin was taken meanwhile (build again), 'replay' when the Idempotency-Key was stored first. */
  private async record(em: EntityManager, a: {
    id: string; agent: Awaited<ReturnType<typeof loadAgent>>; network: ResolvedNetwork; from: string; req: FamilyTransactionRequest;
    intent: TransferIntent; signed: SignedTransfer; mode: TransactionMode; idempotencyKey: string | null; digest: string; actor: string;
  }): Promise<TransactionRow | 'replay' | null> {
    const { agent, network, signed, req } = a;
    const status = a.mode === 'submit' ? 'signed' : 'sign_only';
    const details = { ...signed.details, ...(req.tokenMint ? { tokenMint: req.tokenMint } : {}) };
    try {
      return await em.transactional(async (tx): Promise<TransactionRow | 'replay'> => {
        if (a.idempotencyKey !== null) {
          if (!await lockIdempotencyKey(tx, agent.id, a.idempotencyKey)) throw conflict('Idempotency-Key: a request with this key is being signed; retry shortly');
          if (await findByIdempotencyKey(tx, agent.id, a.idempotencyKey)) return 'replay';
          await releaseStaleIdempotencyKey(tx, agent.id, a.idempotencyKey);
        }
        return recordFamilyTransaction(tx, {
          id: a.id, orgId: agent.org_id, agentId: agent.id, family: network.name, chain: network.net.name, chainId: network.net.chainId,
          from: a.from, to: req.to, value: a.intent.amount, spend: req.tokenMint ? 0n : a.intent.amount, status, signedTx: signed.raw, txHash: signed.txHash,
          // A sign-only transfer's bytes are the caller's to send: its coins are not held back from later
          // transfers (once sent, the node's mempool shows them spent, which the family respects).
          fee: signed.fee, details, spends: a.mode === 'submit' ? signed.spends : [], idempotencyKey: a.idempotencyKey, requestDigest: a.digest, createdBy: a.actor,
          caps: { dailyLimit: dailyLimitOf(agent, network.name), maxCount: agent.tx_max_per_day },
          event: status !== 'sign_only' ? null : {
            agent_id: agent.id, transaction_id: a.id, chain: network.net.name, chain_id: network.net.chainId, from: a.from, to: req.to,
            tx_hash: signed.txHash, amount: req.value, value_wei: a.intent.amount.toString(), status, actor: a.actor,
          },
        });
      });
    } catch (e) {
      if (e instanceof OutpointTaken) return null;
      if (e instanceof FamilyCapRefused) throw this.capRefusal(e, network, a.intent.amount);
      throw e;
    }
  }

  private capRefusal(e: FamilyCapRefused, network: ResolvedNetwork, amount: bigint): Problem {
    if (e.cap === 'tx_max_per_day') return familyRefusal('tx_max_per_day', "the agent has made all of today's (UTC) transactions its tx_max_per_day allows");
    const unit = network.family.unit;
    return familyRefusal(`per_chain_guardrails.${network.name}.daily_limit`,
      `${formatUnits(amount, unit.decimals)} ${unit.symbol} would bring today's (UTC) ${network.name} total over the agent's daily limit`);
  }
}
