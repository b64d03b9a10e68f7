// Unified sign (POST /v1/agents/{agent_id}/sign) on Solana (issue 32 §3): the agent's Ed25519 key
// signs a message (`personal_sign`: text or 0x-hex bytes; bytes that are a transaction message are
// refused) or a transaction it provides (`transaction` with `raw_transaction`, base64 wire bytes,
// legacy or v0) once its fee payer is checked to be the agent. Sign only: nothing is broadcast.
// The agent's switches apply as on EVM: a message needs message_signing_enabled; a provided
// transaction is signed as it is, unseen by the guardrails (what it moves is not decoded), so it
// is blind signing and needs raw_signing_enabled (off by default).
// Bitcoin: `personal_sign` (BIP-137 signed message for the agent's P2WPKH address) or
// `transaction` with `raw_transaction`, a PSBT whose inputs from the agent's address are signed
// (bitcoin/bitcoin-provided.ts); blind signing as on Solana.
// Tron (issue 33): `transaction` with `tron_transaction` (its JSON), once its one contract's
// owner_address is checked to be the agent (tron/tron-provided.ts); blind signing as on Solana.
// XRP: `transaction` with `xrpl_tx_json` is the same as POST …/transactions/sign with it
// (xrp/xrp-provided.ts: its type among the agent's xrpl_allowed_tx_types, its Account the
// agent's; recorded sign_only, under the guardrails and daily limits).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import type { Kms } from '../../crypto/kms/kms.ts';
import { callerOf } from '../../auth/principal.ts';
import { loadAgent } from '../../agents/agent-repository.ts';
import { forbidden, invalidField } from '../../errors.ts';
import { HOW_TO_ENABLE, authorizeIntents } from '../intents-access.ts';
import { checkSigningKeyPath } from '../transactions/sender-address.ts';
import { familyNetworkOf } from './family-chains.ts';
import { FamilySigner } from './family-signer.ts';
import { signMessage, signProvidedTransaction } from './solana/solana-signing.ts';
import { signProvidedTronTransaction } from './tron/tron-provided.ts';
import { signBitcoinMessage, signProvidedPsbt } from './bitcoin/bitcoin-provided.ts';
import { bitcoinNetworkOf, p2wpkhAddress, type BitcoinNetworkWord } from './bitcoin/bitcoin-network.ts';
import { decode } from 'xrpl';
import type { FamilyTransactionRequest } from './family-request.ts';
import type { TransactionRow } from '../transactions/transaction-repository.ts';

export type FamilySignInput = {
  intent_type: string; chain: string | number; message?: string; raw_transaction?: string; tron_transaction?: unknown; signing_key_path?: string;
  xrpl_tx_json?: Record<string, unknown>;
};

/** XRP: signs a provided transaction as POST …/transactions/sign does (family-transaction-commands.ts). */
export type XrpSignOnly = (ctx: ActionContext, agentId: string, req: FamilyTransactionRequest) => Promise<Pick<TransactionRow, 'from_address' | 'signed_tx' | 'tx_hash' | 'chain'>>;

/** The answer, in the unified sign result's terms (base58 signatures, base64 transactions). */
export type FamilySignResult = {
  intentType: 'personal_sign' | 'transaction'; chain: string; from: string; signature: string; signedTx: string | null; txHash: string | null;
  /** Whether every signature a provided transaction needs is now present. */
  fullySigned: boolean | null;
};

/** The seeded Bitcoin networks' words (family-chains.ts names them; migration 0038 seeds them). */
const BITCOIN_NETWORKS: Record<string, BitcoinNetworkWord> = { bitcoin: 'mainnet', 'bitcoin-testnet': 'testnet', 'bitcoin-regtest': 'regtest' };

const BLIND_SIGNING = `raw_signing_enabled: signing a provided transaction is blind signing (the guardrails do not see what it moves) and is off for this agent (${HOW_TO_ENABLE})`;

const messageBytes = (m: string): Buffer => (/^0x([0-9a-fA-F]{2})*$/.test(m) ? Buffer.from(m.slice(2), 'hex') : Buffer.from(m, 'utf8'));

export class FamilySignCommands {
  private readonly d: { db: () => EntityManager; audit: ActionAudit; xrpSignOnly?: XrpSignOnly };
  private readonly signer: FamilySigner;

  constructor(deps: { db: () => EntityManager; kms: Kms; audit: ActionAudit; xrpSignOnly?: XrpSignOnly }) {
    this.d = deps;
    this.signer = new FamilySigner({ db: deps.db, kms: deps.kms });
  }

  /** Whether `chain` is a network this handles (the EVM commands take the rest). */
  handles(chain: string | number): boolean {
    return familyNetworkOf(chain) !== null;
  }

  async sign(ctx: ActionContext, agentId: string, input: FamilySignInput): Promise<FamilySignResult> {
    if (familyNetworkOf(input.chain)?.family === 'xrp') return this.signXrpl(ctx, agentId, input);
    const principal = callerOf(ctx);
    const em = this.d.db();
    const agent = await loadAgent(em, principal.orgId, agentId);
    await authorizeIntents(() => em, principal, agent);
    checkSigningKeyPath(agent.id, input.signing_key_path);
    const network = familyNetworkOf(input.chain)!;
    if (network.family === 'tron') return this.signTron(ctx, agent, network.name, input);
    if (network.family === 'bitcoin') return this.signBitcoin(ctx, agent, network.name, input);
    if (network.family !== 'solana') throw invalidField('chain', `unified sign is not offered on ${network.name}: sign a transfer with POST /v1/agents/{agent_id}/transactions/sign`);
    let result: FamilySignResult;
    if (input.intent_type === 'personal_sign') {
      if (!agent.message_signing_enabled) throw forbidden(`message_signing_enabled: message signing is off for this agent (${HOW_TO_ENABLE})`);
      if (input.message === undefined) throw invalidField('message', 'is required for personal_sign: UTF-8 text or 0x-hex bytes');
      const key = await this.signer.activeKey(agent, 'solana');
      const s = await signMessage(messageBytes(input.message), key.sender, key.sign);
      result = { intentType: 'personal_sign', chain: network.name, from: key.sender.address, signature: s.signatureBase58, signedTx: null, txHash: null, fullySigned: null };
    } else if (input.intent_type === 'transaction') {
      if (input.raw_transaction === undefined) throw invalidField('raw_transaction', 'is required: the Solana transaction (base64 wire bytes) whose fee payer is the agent');
      if (!agent.raw_signing_enabled) throw forbidden(BLIND_SIGNING);
      const key = await this.signer.activeKey(agent, 'solana');
      const s = await signProvidedTransaction(input.raw_transaction, key.sender, key.sign);
      result = { intentType: 'transaction', chain: network.name, from: key.sender.address, signature: s.signature, signedTx: s.raw, txHash: s.signature, fullySigned: s.fullySigned };
    } else {
      throw invalidField('intent_type', 'on Solana: personal_sign (a message) or transaction (with raw_transaction)');
    }
    await this.d.audit.record(ctx, 'agent.sign', {
      resourceType: 'agent', resourceId: agent.id,
      details: { intent_type: result.intentType, chain: result.chain, address: result.from, signature: result.signature },
    });
    return result;
  }

  /** Tron: a provided transaction only (blind signing: raw_signing_enabled). */
  private async signTron(ctx: ActionContext, agent: Awaited<ReturnType<typeof loadAgent>>, chain: string, input: FamilySignInput): Promise<FamilySignResult> {
    if (input.intent_type !== 'transaction') throw invalidField('intent_type', 'on Tron: transaction (with tron_transaction)');
    if (input.tron_transaction === undefined) throw invalidField('tron_transaction', "is required: the Tron transaction JSON {raw_data, raw_data_hex, txID} whose owner_address is the agent");
    if (!agent.raw_signing_enabled) throw forbidden(BLIND_SIGNING);
    const key = await this.signer.activeKey(agent, 'tron');
    const s = await signProvidedTronTransaction(input.tron_transaction, key.sender, key.sign);
    const result: FamilySignResult = { intentType: 'transaction', chain, from: key.sender.address, signature: s.signature, signedTx: s.signedTx, txHash: s.txId, fullySigned: null };
    await this.d.audit.record(ctx, 'agent.sign', {
      resourceType: 'agent', resourceId: agent.id,
      details: { intent_type: result.intentType, chain: result.chain, address: result.from, signature: result.signature, tx_hash: s.txId },
    });
    return result;
  }

  /** Bitcoin: a BIP-137 message signature, or the agent's inputs of a provided PSBT (blind signing: raw_signing_enabled). */
  private async signBitcoin(ctx: ActionContext, agent: Awaited<ReturnType<typeof loadAgent>>, chain: string, input: FamilySignInput): Promise<FamilySignResult> {
    const network = bitcoinNetworkOf(BITCOIN_NETWORKS[chain]!);
    let result: FamilySignResult;
    let signedInputs: number | undefined;
    if (input.intent_type === 'personal_sign') {
      if (!agent.message_signing_enabled) throw forbidden(`message_signing_enabled: message signing is off for this agent (${HOW_TO_ENABLE})`);
      if (input.message === undefined) throw invalidField('message', 'is required for personal_sign: UTF-8 text or 0x-hex bytes');
      const key = await this.signer.activeKey(agent, 'bitcoin');
      const from = { publicKey: key.sender.publicKey, address: p2wpkhAddress(key.sender.publicKey, network) };
      const signature = await signBitcoinMessage(messageBytes(input.message), from, key.sign);
      result = { intentType: 'personal_sign', chain, from: from.address, signature, signedTx: null, txHash: null, fullySigned: null };
    } else if (input.intent_type === 'transaction') {
      if (input.raw_transaction === undefined) throw invalidField('raw_transaction', "is required: a PSBT (base64 or hex) with inputs from the agent's address");
      if (!agent.raw_signing_enabled) throw forbidden(BLIND_SIGNING);
      const key = await this.signer.activeKey(agent, 'bitcoin');
      const from = { publicKey: key.sender.publicKey, address: p2wpkhAddress(key.sender.publicKey, network) };
      const s = await signProvidedPsbt(input.raw_transaction, network, from, key.sign);
      signedInputs = s.signedInputs;
      result = { intentType: 'transaction', chain, from: from.address, signature: s.signature, signedTx: s.signedTx, txHash: s.txHash, fullySigned: s.fullySigned };
    } else {
      throw invalidField('intent_type', 'on Bitcoin: personal_sign (a message) or transaction (a PSBT in raw_transaction)');
    }
    await this.d.audit.record(ctx, 'agent.sign', {
      resourceType: 'agent', resourceId: agent.id,
      details: {
        intent_type: result.intentType, chain, address: result.from, signature: result.signature,
        ...(result.txHash ? { tx_hash: result.txHash } : {}), ...(signedInputs !== undefined ? { signed_inputs: signedInputs } : {}),
      },
    });
    return result;
  }

  /** XRP `transaction` with xrpl_tx_json (see the header); the signature is the signed transaction's TxnSignature. */
  private async signXrpl(ctx: ActionContext, agentId: string, input: FamilySignInput): Promise<FamilySignResult> {
    if (input.intent_type !== 'transaction') throw invalidField('intent_type', 'on the XRP Ledger: transaction (with xrpl_tx_json)');
    if (input.xrpl_tx_json === undefined) throw invalidField('xrpl_tx_json', 'is required: the XRPL transaction (JSON) whose Account is the agent');
    if (!this.d.xrpSignOnly) throw invalidField('chain', 'XRP signing is not available on this deployment');
    const row = await this.d.xrpSignOnly(ctx, agentId, { chain: input.chain, to: '', value: '0', xrplTxJson: input.xrpl_tx_json, signingKeyPath: input.signing_key_path });
    const signature = String((decode(row.signed_tx!) as { TxnSignature?: unknown }).TxnSignature ?? '');
    return { intentType: 'transaction', chain: row.chain ?? String(input.chain), from: row.from_address ?? '', signature, signedTx: row.signed_tx, txHash: row.tx_hash, fullySigned: null };
  }
}
