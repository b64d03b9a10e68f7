// Hand-assembled contracts and addresses for tests against a local EVM node: no compiler, a few
// bytes of EVM each. Placed with hardhat_setCode, or deployed with initCode().
import { encodeAbiParameters, toFunctionSelector, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { EvmNode } from './evm-node.ts';

export const newAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

/** Revert data of Error(reason), as Solidity's require/revert encode it. */
export const errorString = (reason: string): Hex =>
  `${toFunctionSelector('Error(string)')}${encodeAbiParameters([{ type: 'string' }], [reason]).slice(2)}` as Hex;

/** Runtime code that always reverts with `payload` (copied from its own tail). */
export function revertingRuntime(payload: Hex): Hex {
  const len = ((payload.length - 2) / 2).toString(16).padStart(4, '0');
  return `0x61${len}61000f60003961${len}6000fd${payload.slice(2)}`;
}

/** Init code that deploys `runtime` as is (CODECOPY the tail, RETURN it). */
export function initCode(runtime: Hex): Hex {
  const len = ((runtime.length - 2) / 2).toString(16).padStart(4, '0');
  return `0x61${len}600e60003961${len}6000f3${runtime.slice(2)}`;
}

/** Places `runtime` at a fresh address (hardhat_setCode) and returns it. */
export async function placeContract(node: EvmNode, runtime: Hex): Promise<Address> {
  const address = newAddress();
  await node.rpc('hardhat_setCode', [address, runtime]);
  return address;
}
