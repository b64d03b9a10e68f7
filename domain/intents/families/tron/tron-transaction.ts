// Tron transactions in the protocol's own bytes, with tronweb's protobuf classes (no hand-written
// encoding): a transaction is `raw_data` (the contract to run, the reference block, expiration,
// timestamp, fee_limit) and its signatures; the txID is sha256 of the serialized raw_data, and
// what the key signs is the txID. Built here from the JSON form the HTTP API speaks
// (visible=false: addresses as 41… hex), and decoded back from raw_data_hex so that nothing built
// elsewhere (the node's triggersmartcontract answer, an agent's provided transaction) is signed
// before its bytes are read and its txID recomputed here.
import { createHash } from 'node:crypto';
import { utils } from 'tronweb';
import type { NowBlock, TronTransactionJson } from './tron-http.ts';

const TYPE_URL = 'type.googleapis.com/protocol.';

/** The reference block fields of a transaction built on `head` (TAPOS: the node refuses a block it does not know). */
export function referenceOf(head: NowBlock): { ref_block_bytes: string; ref_block_hash: string } {
  const bytes = (head.number & 0xffffn).toString(16).padStart(4, '0');
  return { ref_block_bytes: bytes, ref_block_hash: head.blockID.slice(16, 32) };
}

export type ContractJson =
  | { type: 'TransferContract'; value: { owner_address: string; to_address: string; amount: number } }
  | { type: 'TriggerSmartContract'; value: { owner_address: string; contract_address: string; data: string; call_value?: number } };

export type RawFields = { ref_block_bytes: string; ref_block_hash: string; expiration: number; timestamp: number; fee_limit?: number };

/** The unsigned transaction in the node's JSON form, its raw_data_hex and txID computed from the protobuf. */
export function buildTransaction(contract: ContractJson, fields: RawFields): TronTransactionJson {
  const raw_data: Record<string, unknown> = {
    contract: [{ parameter: { value: contract.value, type_url: TYPE_URL + contract.type }, type: contract.type }],
    ref_block_bytes: fields.ref_block_bytes, ref_block_hash: fields.ref_block_hash, expiration: fields.expiration, timestamp: fields.timestamp,
    ...(fields.fee_limit !== undefined ? { fee_limit: fields.fee_limit } : {}),
  };
  const pb = utils.transaction.txJsonToPb({ raw_data, visible: false });
  const rawHex = utils.transaction.txPbToRawDataHex(pb).toLowerCase();
  return { visible: false, txID: txIdOf(rawHex), raw_data, raw_data_hex: rawHex };
}

/** sha256 of the raw_data bytes, hex: the transaction's id and the digest its signatures sign. */
export const txIdOf = (rawDataHex: string): string => createHash('sha256').update(Buffer.from(rawDataHex, 'hex')).digest('hex');

// The generated protobuf classes tronweb registers (globalThis.TronWebProto), typed as far as used here.
type Any = { getTypeUrl(): string; getValue_asU8(): Uint8Array };
type ContractPb = { getType(): number; getParameter(): Any | undefined; getPermissionId(): number };
type RawPb = {
  getContractList(): ContractPb[]; getRefBlockBytes_asU8(): Uint8Array; getRefBlockHash_asU8(): Uint8Array; getRefBlockNum(): number;
  getExpiration(): number; getTimestamp(): number; getFeeLimit(): number; getData_asU8(): Uint8Array; getScripts_asU8(): Uint8Array;
  getAuthsList(): unknown[]; serializeBinary(): Uint8Array;
};
type Decoder<T> = { deserializeBinary(b: Uint8Array): T };
type Fields = Record<string, () => unknown>;
const proto = (globalThis as unknown as { TronWebProto: Record<string, unknown> }).TronWebProto;
const RawClass = (proto.Transaction as { raw: Decoder<RawPb> }).raw;

/** A contract as read from the bytes: its type name, owner (41… hex) and, for the two built here, their fields. */
export type DecodedContract =
  | { type: 'TransferContract'; owner: string; to: string; amount: bigint }
  | { type: 'TriggerSmartContract'; owner: string; contract: string; data: string; callValue: bigint; callTokenValue: bigint; tokenId: bigint }
  | { type: string; owner: string };

export type DecodedTransaction = {
  contracts: DecodedContract[]; permissionIds: number[];
  refBlockBytes: string; refBlockHash: string; expiration: number; timestamp: number; feeLimit: number;
  /** raw_data's memo (`data`), hex; '' when none. */
  memo: string;
};

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Reads raw_data bytes; throws (a plain Error with the reason) when they are not one canonical Tron raw_data. */
export function decodeRawData(rawDataHex: string): DecodedTransaction {
  if (!/^([0-9a-fA-F]{2})+$/.test(rawDataHex)) throw new Error('raw_data_hex is not hex');
  const bytes = Buffer.from(rawDataHex, 'hex');
  let raw: RawPb;
  try { raw = RawClass.deserializeBinary(bytes); } catch { throw new Error('raw_data_hex is not a Tron transaction'); }
  // Canonical: the bytes re-encode to themselves (no unknown fields, nothing appended).
  if (!Buffer.from(raw.serializeBinary()).equals(bytes)) throw new Error('raw_data_hex carries fields or bytes a Tron transaction does not have');
  if (raw.getAuthsList().length > 0 || raw.getScripts_asU8().length > 0 || raw.getRefBlockNum() !== 0) throw new Error('raw_data carries auths, scripts or ref_block_num');
  const contracts = raw.getContractList().map(decodeContract);
  return {
    contracts, permissionIds: raw.getContractList().map((c) => c.getPermissionId()),
    refBlockBytes: hex(raw.getRefBlockBytes_asU8()), refBlockHash: hex(raw.getRefBlockHash_asU8()),
    expiration: raw.getExpiration(), timestamp: raw.getTimestamp(), feeLimit: raw.getFeeLimit(), memo: hex(raw.getData_asU8()),
  };
}

function decodeContract(c: ContractPb): DecodedContract {
  const param = c.getParameter();
  if (!param || !param.getTypeUrl().startsWith(TYPE_URL)) throw new Error('a contract has no parameter of a protocol type');
  const type = param.getTypeUrl().slice(TYPE_URL.length);
  const cls = proto[type] as Decoder<Fields> | undefined;
  if (!cls || typeof cls.deserializeBinary !== 'function') throw new Error(`unknown contract type ${type}`);
  const v = cls.deserializeBinary(param.getValue_asU8());
  // Every Tron contract's field 1 is owner_address.
  const owner = typeof v.getOwnerAddress_asU8 === 'function' ? hex(v.getOwnerAddress_asU8() as Uint8Array) : '';
  if (type === 'TransferContract') {
    return { type, owner, to: hex(v.getToAddress_asU8!() as Uint8Array), amount: BigInt(v.getAmount!() as number) };
  }
  if (type === 'TriggerSmartContract') {
    return {
      type, owner, contract: hex(v.getContractAddress_asU8!() as Uint8Array), data: hex(v.getData_asU8!() as Uint8Array),
      callValue: BigInt(v.getCallValue!() as number), callTokenValue: BigInt(v.getCallTokenValue!() as number), tokenId: BigInt(v.getTokenId!() as number),
    };
  }
  return { type, owner };
}

/**
 * A transaction in JSON form whose parts agree: raw_data (what a node reads on broadcast) encodes
 * to raw_data_hex, and txID is sha256 of those bytes. Returns the decoded bytes; throws otherwise.
 */
export function checkTransactionJson(tx: TronTransactionJson): DecodedTransaction {
  if (typeof tx.raw_data_hex !== 'string' || typeof tx.raw_data !== 'object' || tx.raw_data === null) throw new Error('the transaction has no raw_data and raw_data_hex');
  const decoded = decodeRawData(tx.raw_data_hex);
  let fromJson: string;
  try {
    fromJson = utils.transaction.txPbToRawDataHex(utils.transaction.txJsonToPb({ raw_data: tx.raw_data, visible: tx.visible === true })).toLowerCase();
  } catch {
    throw new Error('raw_data is not a Tron transaction tronweb can encode');
  }
  if (fromJson !== tx.raw_data_hex.toLowerCase()) throw new Error('raw_data does not encode to raw_data_hex');
  if (typeof tx.txID !== 'string' || tx.txID.toLowerCase() !== txIdOf(tx.raw_data_hex)) throw new Error('txID is not sha256 of raw_data_hex');
  return decoded;
}
