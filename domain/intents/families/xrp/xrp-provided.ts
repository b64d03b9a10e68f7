// A transaction the agent provides whole (`xrpl_tx_json`, reference §21): signed only when its
// TransactionType is one the agent's owners allowed (agents.xrpl_allowed_tx_types; empty: none)
// and its Account is the agent's own address. It must come unsigned (no TxnSignature, Signers or
// another SigningPubKey) and be a transaction xrpl's codec can serialize. What an XRP Payment in
// it moves (a string Amount in drops) counts against the guardrails like a transfer; anything
// else moves no XRP the guardrails see (its Fee aside), which is why each type needs allowing.
import { encodeForSigning } from 'xrpl';
import { invalidField } from '../../../errors.ts';
import { familyRefusal } from '../family-guardrails.ts';
import { formatUnits } from '../units.ts';
import type { XrplTxJson } from './xrp-signing.ts';

export type ProvidedXrpl = {
  tx: XrplTxJson; type: string;
  /** The destination a guardrail sees: the Payment's Destination, else the Account itself. */
  to: string;
  /** XRP the transaction sends, in drops (a Payment's string Amount; 0 otherwise). */
  amount: bigint;
};

const FIELD = 'xrpl_tx_json';

export function checkProvided(raw: unknown, agentAddress: string, allowed: readonly string[]): ProvidedXrpl {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalidField(FIELD, 'must be an XRP Ledger transaction as a JSON object');
  const tx = { ...(raw as XrplTxJson) };
  const type = tx.TransactionType;
  if (typeof type !== 'string' || type === '') throw invalidField(FIELD, 'needs a TransactionType');
  if (!allowed.includes(type)) {
    throw familyRefusal('xrpl_allowed_tx_types', `the agent may not sign ${type} transactions (allowed: ${allowed.length > 0 ? allowed.join(', ') : 'none'})`);
  }
  if (tx.Account !== agentAddress) throw invalidField(FIELD, `Account must be the agent's XRP address ${agentAddress}`);
  if (tx.TxnSignature !== undefined || tx.Signers !== undefined) throw invalidField(FIELD, 'must come unsigned (no TxnSignature or Signers)');
  if (tx.SigningPubKey !== undefined && tx.SigningPubKey !== '') delete tx.SigningPubKey; // replaced by the agent's key when signed
  try {
    encodeForSigning({ ...tx, SigningPubKey: '' } as never);
  } catch (e) {
    throw invalidField(FIELD, `is not a transaction the XRP Ledger codec can serialize: ${(e as Error).message.slice(0, 200)}`);
  }
  const isXrpPayment = type === 'Payment' && typeof tx.Amount === 'string';
  if (isXrpPayment && !/^[0-9]{1,20}$/.test(tx.Amount as string)) throw invalidField(FIELD, 'Amount must be drops as a decimal string');
  return {
    tx, type, to: type === 'Payment' && typeof tx.Destination === 'string' ? tx.Destination : agentAddress,
    amount: isXrpPayment ? BigInt(tx.Amount as string) : 0n,
  };
}

/** A request carrying xrpl_tx_json, with `to` and `value` (XRP) taken from the checked transaction. */
export function providedRequest<R extends { to: string; value: string; xrplTxJson?: Record<string, unknown> }>(req: R, agentAddress: string, allowed: readonly string[]): R {
  const p = checkProvided(req.xrplTxJson, agentAddress, allowed);
  return { ...req, to: p.to, value: formatUnits(p.amount, 6), xrplTxJson: p.tx };
}
