// Unified sign of a Tron transaction the agent provides (POST …/sign, intent_type `transaction`,
// `tron_transaction`): the transaction in the JSON form tronweb and the node's HTTP API use
// ({txID?, raw_data, raw_data_hex, visible?}, or that JSON as text). Before the key signs, its
// parts must agree (raw_data encodes to raw_data_hex, txID — when sent — is sha256 of it), it
// must hold exactly one contract, whose owner_address is the agent, under the owner permission,
// and not have expired. The answer is the transaction with the agent's signature added (65 bytes
// r‖s‖v, hex) and its txID. Nothing is broadcast.
import { badRequest } from '../../../errors.ts';
import type { FamilySender, PayloadSigner } from '../chain-family.ts';
import { tronBase58, tronHex } from './tron-address.ts';
import type { TronTransactionJson } from './tron-http.ts';
import { signTxId } from './tron-signing.ts';
import { checkTransactionJson, txIdOf } from './tron-transaction.ts';

export type ProvidedTronSigned = { signedTx: string; txId: string; signature: string };

const MAX_RAW_HEX = 2 * 64 * 1024;

function parse(input: unknown): TronTransactionJson {
  let o = input;
  if (typeof o === 'string') {
    try { o = JSON.parse(o); } catch { throw badRequest('tron_transaction: must be the transaction JSON {raw_data, raw_data_hex, txID}'); }
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw badRequest('tron_transaction: must be the transaction JSON {raw_data, raw_data_hex, txID}');
  const t = o as Record<string, unknown>;
  if (typeof t.raw_data_hex !== 'string' || t.raw_data_hex.length > MAX_RAW_HEX || t.raw_data === null || typeof t.raw_data !== 'object') {
    throw badRequest('tron_transaction: needs raw_data (JSON) and raw_data_hex (hex, at most 64 KB)');
  }
  if (t.signature !== undefined && (!Array.isArray(t.signature) || t.signature.some((s) => typeof s !== 'string' || !/^[0-9a-fA-F]{130}$/.test(s)))) {
    throw badRequest('tron_transaction: signature must be a list of 65-byte hex signatures');
  }
  const rawHex = t.raw_data_hex.toLowerCase();
  return {
    txID: typeof t.txID === 'string' ? t.txID : txIdOf(/^([0-9a-f]{2})+$/.test(rawHex) ? rawHex : ''),
    raw_data: t.raw_data as Record<string, unknown>, raw_data_hex: rawHex, visible: t.visible === true,
    ...(Array.isArray(t.signature) ? { signature: t.signature as string[] } : {}),
  };
}

export async function signProvidedTronTransaction(input: unknown, sender: FamilySender, sign: PayloadSigner, now = Date.now()): Promise<ProvidedTronSigned> {
  const tx = parse(input);
  let decoded;
  try { decoded = checkTransactionJson(tx); } catch (e) { throw badRequest(`tron_transaction: ${(e as Error).message}`); }
  const [contract] = decoded.contracts;
  if (decoded.contracts.length !== 1 || !contract) throw badRequest('tron_transaction: must hold exactly one contract');
  if (decoded.permissionIds[0] !== 0) throw badRequest('tron_transaction: only the owner permission (Permission_id 0) is signed here');
  if (contract.owner !== tronHex(sender.address)) {
    throw badRequest(`tron_transaction: its owner_address is ${tronBase58(contract.owner) ?? contract.owner}, not this agent's address ${sender.address}`);
  }
  if (decoded.expiration <= now) throw badRequest('tron_transaction: has expired (raw_data.expiration is past): build it again on a recent block');
  const txId = tx.txID.toLowerCase();
  const signature = await signTxId(txId, sender, sign);
  const others = (tx.signature ?? []).filter((s) => s.toLowerCase() !== signature);
  const signed: TronTransactionJson = { visible: tx.visible === true, txID: txId, raw_data: tx.raw_data, raw_data_hex: tx.raw_data_hex, signature: [...others, signature] };
  return { signedTx: JSON.stringify(signed), txId, signature };
}
