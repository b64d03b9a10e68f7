// The Safe's own arithmetic, pure: the SafeTx hash exactly as the Safe contract computes it
// (EIP-712 over the domain {chainId, verifyingContract} and the SafeTx struct; Safe ≥ 1.3), the
// signature bytes `execTransaction` takes (65 bytes per owner, r‖s‖v with v 27/28 for an ECDSA
// signature over that hash, sorted by owner address ascending) and its calldata. Gas refunds are
// not used: safeTxGas, baseGas and gasPrice are 0 and gasToken / refundReceiver the zero address,
// so the Safe charges nothing and the sender of `execTransaction` pays the gas.
import {
  encodeFunctionData, hashTypedData, isHex, recoverAddress, getAddress, zeroAddress, type Address, type Hex,
} from 'viem';

export type SafeTx = { to: Address; value: bigint; data: Hex; operation: 0 | 1; nonce: bigint };

const SAFE_TX_TYPES = {
  SafeTx: [
    { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'data', type: 'bytes' },
    { name: 'operation', type: 'uint8' }, { name: 'safeTxGas', type: 'uint256' }, { name: 'baseGas', type: 'uint256' },
    { name: 'gasPrice', type: 'uint256' }, { name: 'gasToken', type: 'address' }, { name: 'refundReceiver', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

/** The SafeTx message with the refund fields at zero. */
export function safeTxMessage(tx: SafeTx) {
  return {
    to: tx.to, value: tx.value, data: tx.data, operation: tx.operation, safeTxGas: 0n, baseGas: 0n, gasPrice: 0n,
    gasToken: zeroAddress, refundReceiver: zeroAddress, nonce: tx.nonce,
  };
}

/** The typed data a signer signs (eth_signTypedData_v4): the same hash as safeTxHash. */
export function safeTypedData(chainId: number, safe: Address, tx: SafeTx) {
  return { domain: { chainId, verifyingContract: safe }, types: SAFE_TX_TYPES, primaryType: 'SafeTx' as const, message: safeTxMessage(tx) };
}

/** getTransactionHash(...) of the Safe at `safe` on `chainId`. */
export function safeTxHash(chainId: number, safe: Address, tx: SafeTx): Hex {
  return hashTypedData(safeTypedData(chainId, safe, tx));
}

/** A 65-byte signature with v normalized to 27/28 (0/1 accepted), or null when it is not one. */
export function normalizeSignature(sig: string): Hex | null {
  if (!isHex(sig) || sig.length !== 132) return null;
  const v = parseInt(sig.slice(130), 16);
  const vv = v === 0 || v === 1 ? v + 27 : v;
  if (vv !== 27 && vv !== 28) return null;
  // Low-s only, as the Safe's ecrecover path and EIP-2 expect of honest signers.
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  if (s > SECP256K1_HALF_N) return null;
  return `${sig.slice(0, 130)}${vv.toString(16)}` as Hex;
}
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** The address a signature over `hash` comes from (EIP-55), or null when it recovers to none. */
export async function signerOf(hash: Hex, signature: Hex): Promise<Address | null> {
  try {
    return getAddress(await recoverAddress({ hash, signature }));
  } catch {
    return null;
  }
}

/** r‖s‖v of a KMS signature (recovery 0/1 → v 27/28). */
export function packSignature(r: Buffer, s: Buffer, recovery: 0 | 1): Hex {
  return `0x${r.toString('hex').padStart(64, '0')}${s.toString('hex').padStart(64, '0')}${(27 + recovery).toString(16)}`;
}

/** The `signatures` argument: each owner's 65 bytes, owners sorted ascending as the Safe checks. */
export function packSignatures(sigs: { owner: string; signature: Hex }[]): Hex {
  const sorted = [...sigs].sort((a, b) => (BigInt(a.owner) < BigInt(b.owner) ? -1 : BigInt(a.owner) > BigInt(b.owner) ? 1 : 0));
  return `0x${sorted.map((x) => x.signature.slice(2)).join('')}`;
}

export const SAFE_ABI = [
  {
    type: 'function', name: 'execTransaction', stateMutability: 'payable', outputs: [{ type: 'bool', name: 'success' }],
    inputs: [
      { type: 'address', name: 'to' }, { type: 'uint256', name: 'value' }, { type: 'bytes', name: 'data' }, { type: 'uint8', name: 'operation' },
      { type: 'uint256', name: 'safeTxGas' }, { type: 'uint256', name: 'baseGas' }, { type: 'uint256', name: 'gasPrice' },
      { type: 'address', name: 'gasToken' }, { type: 'address', name: 'refundReceiver' }, { type: 'bytes', name: 'signatures' },
    ],
  },
  { type: 'function', name: 'nonce', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint256', name: '' }] },
  { type: 'function', name: 'getThreshold', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint256', name: '' }] },
] as const;

/** Calldata of execTransaction(tx, refunds at zero, signatures). */
export function execTransactionData(tx: SafeTx, signatures: Hex): Hex {
  const m = safeTxMessage(tx);
  return encodeFunctionData({
    abi: SAFE_ABI, functionName: 'execTransaction',
    args: [m.to, m.value, m.data, m.operation, m.safeTxGas, m.baseGas, m.gasPrice, m.gasToken, m.refundReceiver, signatures],
  });
}
