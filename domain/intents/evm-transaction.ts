// An EVM transaction of EIP-2718 type 0 to 4 as the `transaction` intent of
// POST /v1/agents/{agent_id}/sign describes it, built with viem: 0 legacy (EIP-155), 1 EIP-2930
// (access list), 2 EIP-1559, 3 EIP-4844 (blob versioned hashes and max_fee_per_blob_gas; the
// blobs themselves, the sidecar, are the sender's business and never signed), 4 EIP-7702
// (authorization list: each entry already signed by its own authority and passed in as is).
// The endpoint only signs: it looks nothing up on the chain, so the nonce, the gas limit and the
// fee fields of the type are required and a 400 says so. Fields that do not belong to the type
// are refused, not ignored, so a client never believes a fee was applied that was not.
// Pure: no database, no key. The digest signed is keccak256 of the unsigned serialization.
import { keccak256, serializeTransaction, toHex, type Address, type Hex, type SignedAuthorizationList, type TransactionSerializable } from 'viem';
import { invalidField } from '../errors.ts';

export type AccessListInput = { address: Address; storageKeys: Hex[] }[];

/** The transaction fields of a sign request, as the route's schema delivered them (amounts in wei). */
export type TransactionFields = {
  tx_type?: number;
  to?: Address;
  value?: bigint;
  data?: Hex;
  nonce?: number;
  gas_limit?: bigint;
  gas_price?: bigint;
  max_fee_per_gas?: bigint;
  max_priority_fee_per_gas?: bigint;
  max_fee_per_blob_gas?: bigint;
  access_list?: AccessListInput;
  blob_versioned_hashes?: Hex[];
  authorization_list?: SignedAuthorizationList;
};

export type TxType = 0 | 1 | 2 | 3 | 4;

export type UnsignedTransaction = { type: TxType; tx: TransactionSerializable; digest: Hex };

type FeeField = 'gas_price' | 'max_fee_per_gas' | 'max_priority_fee_per_gas' | 'max_fee_per_blob_gas' | 'access_list' | 'blob_versioned_hashes' | 'authorization_list';

/** Which optional fields each type takes (the rest of FeeField is refused). */
const FIELDS_OF: Record<TxType, FeeField[]> = {
  0: ['gas_price'],
  1: ['gas_price', 'access_list'],
  2: ['max_fee_per_gas', 'max_priority_fee_per_gas', 'access_list'],
  3: ['max_fee_per_gas', 'max_priority_fee_per_gas', 'access_list', 'max_fee_per_blob_gas', 'blob_versioned_hashes'],
  4: ['max_fee_per_gas', 'max_priority_fee_per_gas', 'access_list', 'authorization_list'],
};
const ALL_FEE_FIELDS: FeeField[] = ['gas_price', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'max_fee_per_blob_gas', 'access_list', 'blob_versioned_hashes', 'authorization_list'];
const TYPE_NAMES: Record<TxType, string> = { 0: 'legacy', 1: 'EIP-2930', 2: 'EIP-1559', 3: 'EIP-4844', 4: 'EIP-7702' };

const SIGN_ONLY = 'this endpoint only signs and looks nothing up on the chain';

/** tx_type as sent, or what the fields say (viem's rule): 7702 list → 4, blob fields → 3, 1559 fees → 2, gas_price → 0 (1 with an access list); 2 otherwise. */
export function txTypeOf(f: TransactionFields): TxType {
  if (f.tx_type !== undefined) return f.tx_type as TxType;
  if (f.authorization_list !== undefined) return 4;
  if (f.blob_versioned_hashes !== undefined || f.max_fee_per_blob_gas !== undefined) return 3;
  if (f.max_fee_per_gas !== undefined || f.max_priority_fee_per_gas !== undefined) return 2;
  if (f.gas_price !== undefined) return f.access_list !== undefined ? 1 : 0;
  return 2;
}

/** The unsigned transaction for `chainId` and the digest to sign, or a 400 naming the field. */
export function buildTransaction(f: TransactionFields, chainId: number): UnsignedTransaction {
  const type = txTypeOf(f);
  const name = `tx_type ${type} (${TYPE_NAMES[type]})`;
  for (const field of ALL_FEE_FIELDS) {
    if (f[field] !== undefined && !FIELDS_OF[type].includes(field)) throw invalidField(field, `is not a field of ${name}`);
  }
  if (f.nonce === undefined) throw invalidField('nonce', `is required: ${SIGN_ONLY}, so send the account's next nonce (eth_getTransactionCount with "pending")`);
  if (f.gas_limit === undefined) throw invalidField('gas_limit', `is required: ${SIGN_ONLY} and estimates no gas, so send the gas limit (eth_estimateGas)`);
  if (f.gas_limit === 0n) throw invalidField('gas_limit', 'must be greater than 0');
  const need = <T>(field: FeeField, v: T | undefined, how: string): T => {
    if (v === undefined) throw invalidField(field, `is required for ${name}: ${SIGN_ONLY}, so send it (${how})`);
    return v;
  };
  const base = { chainId, nonce: f.nonce, gas: f.gas_limit, to: f.to, value: f.value, data: f.data };
  let tx: TransactionSerializable;
  if (type === 0 || type === 1) {
    const gasPrice = need('gas_price', f.gas_price, 'in wei, e.g. from eth_gasPrice');
    tx = type === 0 ? { ...base, type: 'legacy', gasPrice } : { ...base, type: 'eip2930', gasPrice, accessList: f.access_list ?? [] };
  } else {
    const maxFeePerGas = need('max_fee_per_gas', f.max_fee_per_gas, 'in wei, e.g. twice the base fee plus the tip');
    const maxPriorityFeePerGas = need('max_priority_fee_per_gas', f.max_priority_fee_per_gas, 'in wei, e.g. from eth_maxPriorityFeePerGas');
    if (maxPriorityFeePerGas > maxFeePerGas) throw invalidField('max_priority_fee_per_gas', 'must not exceed max_fee_per_gas');
    const fees = { maxFeePerGas, maxPriorityFeePerGas, accessList: f.access_list };
    if (type !== 2 && f.to === undefined) throw invalidField('to', `is required for ${name}: it cannot create a contract`);
    if (type === 2) {
      tx = { ...base, type: 'eip1559', ...fees };
    } else if (type === 3) {
      const maxFeePerBlobGas = need('max_fee_per_blob_gas', f.max_fee_per_blob_gas, 'in wei, e.g. from eth_blobBaseFee');
      const hashes = need('blob_versioned_hashes', f.blob_versioned_hashes, 'the versioned hashes of the blobs the sender attaches');
      if (hashes.length === 0) throw invalidField('blob_versioned_hashes', `must list at least one blob for ${name}`);
      tx = { ...base, to: f.to!, type: 'eip4844', ...fees, maxFeePerBlobGas, blobVersionedHashes: hashes };
    } else {
      const list = need('authorization_list', f.authorization_list, 'the signed authorizations [{address, chain_id, nonce, y_parity, r, s}]');
      if (list.length === 0) throw invalidField('authorization_list', `must hold at least one signed authorization for ${name}`);
      list.forEach((a, i) => {
        if (a.chainId !== 0 && a.chainId !== chainId) {
          throw invalidField(`authorization_list.${i}.chain_id`, `must be 0 (any chain) or this chain's chain_id ${chainId}: the network would skip it`);
        }
      });
      tx = { ...base, type: 'eip7702', ...fees, authorizationList: list };
    }
  }
  let unsigned: Hex;
  try {
    unsigned = serializeTransaction(tx);
  } catch (e) {
    throw invalidField(fieldOfViemError(e), (e as { shortMessage?: string }).shortMessage ?? 'is not a valid transaction');
  }
  return { type, tx, digest: keccak256(unsigned) };
}

/** The signed transaction (yParity = recovery; EIP-155 v for legacy) and its hash. */
export function signedTransaction(t: UnsignedTransaction, sig: { r: Buffer; s: Buffer; recovery: 0 | 1 }): { signedTx: Hex; txHash: Hex } {
  const signedTx = serializeTransaction(t.tx, { r: toHex(sig.r), s: toHex(sig.s), v: 27n + BigInt(sig.recovery), yParity: sig.recovery });
  return { signedTx, txHash: keccak256(signedTx) };
}

/** The request field a viem validation error is about, as far as its name says. */
function fieldOfViemError(e: unknown): string {
  const name = (e as { name?: string }).name ?? '';
  if (name === 'FeeCapTooHighError') return 'max_fee_per_gas';
  if (name === 'TipAboveFeeCapError') return 'max_priority_fee_per_gas';
  if (name === 'InvalidChainIdError') return 'chain';
  if (name === 'InvalidAddressError') return 'to';
  if (/Blob|VersionedHash/.test(name)) return 'blob_versioned_hashes';
  return 'tx_type';
}
