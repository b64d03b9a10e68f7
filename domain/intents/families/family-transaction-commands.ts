// The Intents API's transactions on the non-EVM families (issue 32): the same routes as EVM
// (transaction-commands.ts hands a request over when its chain is a Bitcoin, Solana, XRP, Cardano or Tron network),
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
import type { AgentRow } from '../../agents/agent-repository.ts';
import { Problem, conflict, invalidField } from '../../errors.ts';
import { authorizeIntents } from '../intents-access.ts';
import { checkSigningKeyPath } from '../transactions/sender-address.ts';
import { chainProblem } from '../transactions/chain-problems.ts';
import { SenderQueue } from '../transactions/nonce.ts';
import type { TransactionsClient } from '../transactions/client.ts';
import {
  findByIdempotencyKey, inTransaction, lockIdempotencyKey, onHotPool, releaseStaleIdempotencyKey, type TransactionRow,
} from '../transactions/transaction-repository.ts';
import { replay, type TransactionMode, type TransactionOutcome } from '../transactions/transaction-commands.ts';
import type { ChainFamilies, ResolvedNetwork } from './family-registry.ts';
import { FamilySigner, type FamilyKey } from './family-signer.ts';
import { checkFamilyGuardrails, dailyLimitOf, familyRefusal, guardrailsOf } from './family-guardrails.ts';
import { DEFAULT_TOKEN_DECIMALS, familyRequestDigest, type FamilyTransactionRequest } from './family-request.ts';
import { reservedOutpoints } from './family-transaction-repository.ts';
import { recordFamilyTransfer, type FamilyRecord, type FamilyRecordOutcome } from './family-record-repository.ts';
import type { HotReads } from '../../../db/hot-reads.ts';
import type { ChainKey } from '../../chains/chain-fields.ts';
import { wakeOutbox } from '../../events/outbox.ts';
import { SigningAgentCache, StaleSigningAgent, onKeptSigningAgent, signingAgent, type SigningAgent, type SigningAgentGuard } from '../signing/signing-agent.ts';
import { SigningKeyRetired } from '../signing-keys/signer.ts';
import { reservedCardanoUtxos } from './cardano/cardano-utxo-repository.ts';
import type { SignedTransfer, TransferIntent } from './chain-family.ts';
import { formatUnits, parseUnits } from './units.ts';
import { providedRequest } from './xrp/xrp-provided.ts';
import { ReservedHints } from './reserved-hints.ts';

export type FamilyTransactionDeps = {
  db: () => EntityManager; hot: HotReads; kms: Kms; families: ChainFamilies; audit: ActionAudit; client: Pick<TransactionsClient, 'startBroadcast'>;
};

/** Families whose submits reserve what they spend (Bitcoin, Cardano: coins; XRP: sequences), built one sender at a time per process. */
const SEQUENCED = new Set(['bitcoin', 'cardano', 'xrp']);

/** Attempts at choosing coins when parallel requests keep taking the chosen ones. */
const COIN_ATTEMPTS = 3;

type RecordArgs = {
  id: string; agent: AgentRow; network: ResolvedNetwork; from: string; req: FamilyTransactionRequest; intent: TransferIntent;
  signed: SignedTransfer; mode: TransactionMode; idempotencyKey: string | null; digest: string; actor: string; guard: SigningAgentGuard | null;
};

export class FamilyTransactionCommands {
  private readonly d: FamilyTransactionDeps;
  private readonly signer: FamilySigner;
  private readonly senders = new SenderQueue();
  private readonly agents = new SigningAgentCache();
  private readonly hints = new ReservedHints();

  constructor(deps: FamilyTransactionDeps) {
    this.d = deps;
    this.signer = new FamilySigner({ db: deps.db, kms: deps.kms });
  }

  /** Whether `chain` is a network of a family here (the EVM commands take the rest). */
  handles(chain: string | number): boolean {
    return this.d.families.handles(chain);
  }

  /**
   * As on EVM (transaction-commands.ts): the agent, its key of the family and the network's row
   * are read once (one hot-pool statement) and kept; a later request is served from the copy, and
   * the statement that records it checks that none of the three rows changed since. When one has,
   * or when the copy's facts refuse the request, the request runs again on a fresh read.
   */
  async submit(ctx: ActionContext, agentId: string, req: FamilyTransactionRequest, idempotencyKey: string | null, mode: TransactionMode): Promise<TransactionOutcome> {
    const principal = callerOf(ctx);
    const seeded = this.d.families.seeded(req.chain);
    const chainKey: ChainKey = { by: 'name', name: seeded.name };
    return onKeptSigningAgent(this.agents, { orgId: principal.orgId, agentId, chain: chainKey },
      () => signingAgent(this.d.hot, principal.orgId, agentId, chainKey, seeded.family),
      (access, cached) => this.submitAs(ctx, access, cached, req, idempotencyKey, mode));
  }

  private async submitAs(ctx: ActionContext, access: SigningAgent, cached: boolean, req: FamilyTransactionRequest, idempotencyKey: string | null,
    mode: TransactionMode): Promise<TransactionOutcome> {
    const principal = callerOf(ctx);
    // A refusal decided on the copy's facts is not trusted: the rows are asked again.
    const onFacts = async <T>(check: () => Promise<T> | T): Promise<T> => {
      try {
        return await check();
      } catch (e) {
        throw cached && (e instanceof Problem || e instanceof SigningKeyRetired) ? new StaleSigningAgent() : e;
      }
    };
    const { agent } = access;
    const network = await onFacts(async () => {
      await authorizeIntents(() => this.d.db(), principal, agent);
      return this.d.families.fromRow(this.d.families.seeded(req.chain), access.chain);
    });
    const { family, net } = network;
    checkSigningKeyPath(agent.id, req.signingKeyPath);
    // XRP: a transaction the agent provides whole, checked (type allowed, Account the agent's) and read for to/value.
    if (req.xrplTxJson !== undefined) {
      const provided = req;
      req = await onFacts(async () => providedRequest(provided, (await this.signer.activeKey(agent, 'xrp', access.key)).sender.address, agent.xrpl_allowed_tx_types));
    }
    if (!family.isAddress(req.to, net)) throw invalidField('to', `must be a ${network.name} address valid on ${net.name}`);
    const intent = this.intentOf(network, req);
    // The recipient's token account is created when it has none, unless the request says no or
    // the agent's ata_allowlist does not name the recipient.
    if (network.name === 'solana' && intent.tokenMint !== undefined && req.createRecipientTokenAccount === undefined) {
      const allow = guardrailsOf(agent, 'solana').ata_allowlist;
      intent.createRecipientTokenAccount = allow === undefined || allow.includes(req.to);
    }
    const digest = familyRequestDigest(req, net.name, mode);
    if (idempotencyKey !== null) {
      const prior = await findByIdempotencyKey(this.d.db(), agent.id, idempotencyKey);
      if (prior) return { tx: replay(prior, digest), replayed: true };
    }
    const key = await onFacts(() => {
      checkFamilyGuardrails(agent, {
        family: network.name, chain: net.name, to: req.to, amount: intent.amount, tokenMint: req.tokenMint, tokenDecimals: intent.tokenDecimals,
        createsTokenAccount: req.createRecipientTokenAccount === true,
      });
      this.d.families.requireNode(network);
      return this.signer.activeKey(agent, network.name, access.key);
    });
    const from = family.addressOf(key.sender.publicKey, net);
    const id = randomUUID();
    const actor = subjectOf(principal);
    const guard = cached ? access.guard : null;
    const build = async () => {
      for (let attempt = 0; attempt < COIN_ATTEMPTS; attempt++) {
        const signed = await onFacts(() => this.signOnce(network, key, from, intent, mode, attempt > 0));
        const recorded = await this.record({ id, agent, network, from, req, intent, signed, mode, idempotencyKey, digest, actor, guard });
        if (recorded !== null) return recorded;
      }
      return null;
    };
    // One sender's Bitcoin, Cardano (coins) and XRP (sequences) submits are built one at a time in this
    // process (they would all pick the same coins, the same sequence); across processes a coin
    // (sequence) taken first makes the transfer be built again. Solana, Tron and sign-only
    // transfers reserve nothing and run side by side.
    const row = SEQUENCED.has(network.name) && mode === 'submit' ? await this.senders.run(net.chainId, from, build) : await build();
    if (row === null) throw conflict('The coins (XRP: sequences) of this address are being taken by parallel requests; try again shortly');
    if (row === 'replay') {
      const prior = await findByIdempotencyKey(this.d.db(), agent.id, idempotencyKey!);
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
    if (token && network.name !== 'solana' && network.name !== 'tron') throw invalidField('token_mint', 'is for Solana (SPL) and Tron (TRC-20 contract) tokens only here');
    if (req.createRecipientTokenAccount !== undefined && network.name !== 'solana') throw invalidField('create_recipient_token_account', 'is for Solana only');
    if (!token && (req.tokenDecimals !== undefined || req.createRecipientTokenAccount !== undefined)) {
      throw invalidField(req.tokenDecimals !== undefined ? 'token_decimals' : 'create_recipient_token_account', 'needs token_mint');
    }
    if (req.feeRateSatPerVbyte !== undefined && network.name !== 'bitcoin') throw invalidField('fee_rate_sat_per_vbyte', 'is for Bitcoin only');
    if (req.computeUnitPrice !== undefined && network.name !== 'solana') throw invalidField('compute_unit_price', 'is for Solana only');
    if (req.feeLimitSun !== undefined && (network.name !== 'tron' || !token)) throw invalidField('fee_limit_sun', 'is for Tron TRC-20 transfers only (with token_mint)');
    if (req.ttl !== undefined && network.name !== 'cardano') throw invalidField('ttl', 'is for Cardano only');
    const decimals = token ? req.tokenDecimals ?? DEFAULT_TOKEN_DECIMALS : network.family.unit.decimals;
    const amount = parseUnits(req.value, decimals, 'value');
    if (amount <= 0n && req.xrplTxJson === undefined) throw invalidField('value', 'must be more than 0');
    if ((req.destinationTag !== undefined || req.memo !== undefined || req.xrplTxJson !== undefined) && network.name !== 'xrp') throw invalidField('destination_tag', 'is for XRP only');
    return {
      to: req.to, amount, feeRateSatPerVbyte: req.feeRateSatPerVbyte, tokenMint: req.tokenMint, tokenDecimals: token ? decimals : undefined,
      createRecipientTokenAccount: req.createRecipientTokenAccount, computeUnitPrice: req.computeUnitPrice, feeLimitSun: req.feeLimitSun,
      destinationTag: req.destinationTag, memo: req.memo, xrplTxJson: req.xrplTxJson, ttlSeconds: req.ttl,
    };
  }

  /**
   * The family builds and signs once; chain trouble becomes the API's 503/422 as on EVM. Around
   * what the sender's open submits hold: read for a submit (and after a refusal: `fresh`), the
   * kept hint for a sign-only transfer (the recording statement checks it), read again when the
   * hint made the build fail.
   */
  private async signOnce(network: ResolvedNetwork, key: FamilyKey, from: string, intent: TransferIntent, mode: TransactionMode, fresh: boolean): Promise<SignedTransfer> {
    const hinted = SEQUENCED.has(network.name) && mode === 'sign_only' && !fresh;
    const attempt = async (reserved: Set<string>) => {
      try {
        return await network.family.signTransfer(network.net, { publicKey: key.sender.publicKey, address: from }, intent,
          { reservedOutpoints: reserved, signOnly: mode === 'sign_only' }, key.sign);
      } catch (e) {
        if (e instanceof SigningKeyRetired) throw e;
        throw chainProblem(e);
      }
    };
    if (!hinted) return attempt(await this.reserved(network, from));
    const hint = this.hints.get(this.hintKey(network, from));
    try {
      return await attempt(hint);
    } catch (e) {
      if (hint.size === 0 || !(e instanceof Problem)) throw e;
      return attempt(await this.reserved(network, from));
    }
  }

  /** What the sender's open transactions hold now (nothing on Solana and Tron), remembered as the sign-only hint. */
  private async reserved(network: ResolvedNetwork, from: string): Promise<Set<string>> {
    if (!SEQUENCED.has(network.name)) return new Set<string>();
    const held = network.name === 'cardano' ? await reservedCardanoUtxos(this.d.db(), network.net.chainId, from)
      : await reservedOutpoints(this.d.hot, network.net.chainId, from);
    this.hints.remember(this.hintKey(network, from), held);
    return held;
  }

  private hintKey(network: ResolvedNetwork, from: string): string {
    return `${network.net.chainId} ${from}`;
  }

  /**
   * Step 4 in ONE statement (family-record-repository.ts): on the hot pool by itself, or inside the
   * transaction that holds an Idempotency-Key's lock. Null when a chosen coin was taken meanwhile
   * (build again), 'replay' when the Idempotency-Key was stored first.
   */
  private async record(a: RecordArgs): Promise<TransactionRow | 'replay' | null> {
    const { agent, network, signed, req } = a;
    const status = a.mode === 'submit' ? 'signed' : 'sign_only';
    const record: FamilyRecord = {
      id: a.id, orgId: agent.org_id, agentId: agent.id, family: network.name, chain: network.net.name, chainId: network.net.chainId,
      from: a.from, to: req.to, value: a.intent.amount, spend: req.tokenMint ? 0n : a.intent.amount, status, signedTx: signed.raw, txHash: signed.txHash,
      fee: signed.fee, details: { ...signed.details, ...(req.tokenMint ? { tokenMint: req.tokenMint } : {}) },
      // A sign-only transfer's bytes are the caller's to send: its coins are not held back from later
      // transfers (once sent, the node's mempool shows them spent, which the family respects).
      spends: a.mode === 'submit' ? signed.spends : [], holds: a.mode === 'sign_only' ? signed.spends : [], idempotencyKey: a.idempotencyKey, requestDigest: a.digest, createdBy: a.actor,
      caps: { dailyLimit: dailyLimitOf(agent, network.name), maxCount: agent.tx_max_per_day },
      event: status !== 'sign_only' ? null : {
        id: randomUUID(),
        payload: {
          agent_id: agent.id, transaction_id: a.id, chain: network.net.name, chain_id: network.net.chainId, from: a.from, to: req.to,
          tx_hash: signed.txHash, amount: req.value, value_wei: a.intent.amount.toString(), status, actor: a.actor,
        },
      },
    };
    let outcome: FamilyRecordOutcome | 'replay';
    if (a.idempotencyKey === null) {
      outcome = await recordFamilyTransfer(onHotPool(this.d.hot, 'family-tx-record'), record, a.guard);
      if (outcome.row && record.event) wakeOutbox(this.d.hot); // its event has committed (hot sessions skip the outbox trigger)
    } else {
      const key = a.idempotencyKey;
      outcome = await this.d.db().transactional(async (tx): Promise<FamilyRecordOutcome | 'replay'> => {
        if (!await lockIdempotencyKey(tx, agent.id, key)) throw conflict('Idempotency-Key: a request with this key is being signed; retry shortly');
        if (await findByIdempotencyKey(tx, agent.id, key)) return 'replay';
        await releaseStaleIdempotencyKey(tx, agent.id, key);
        return recordFamilyTransfer(inTransaction(tx), record, a.guard);
      });
    }
    if (outcome === 'replay') return 'replay';
    switch (outcome.refused) {
      case null:
        if (record.spends.length > 0) this.hints.hold(this.hintKey(network, a.from), record.spends);
        return outcome.row;
      case 'stale': throw new StaleSigningAgent();
      case 'outpoint_taken': return null;
      default: throw this.capRefusal(outcome.refused, network, a.intent.amount);
    }
  }

  private capRefusal(cap: 'daily_limit' | 'tx_max_per_day', network: ResolvedNetwork, amount: bigint): Problem {
    if (cap === 'tx_max_per_day') return familyRefusal('tx_max_per_day', "the agent has made all of today's (UTC) transactions its tx_max_per_day allows");
    const unit = network.family.unit;
    return familyRefusal(`per_chain_guardrails.${network.name}.daily_limit`,
      `${formatUnits(amount, unit.decimals)} ${unit.symbol} would bring today's (UTC) ${network.name} total over the agent's daily limit`);
  }
}
