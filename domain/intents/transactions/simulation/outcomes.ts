// How simulation results are worded, shared by both ways of simulating (call by call, or one
// eth_simulateV1 bundle): revert decoding, error codes, the sender's funds check and balance changes.
import { decodeAbiParameters, getAddress, type Address, type Hex } from 'viem';
import type { Fees } from '../../../chains/chain-rpc.ts';
import type { BalanceChange, SimulationResult } from './simulation-provider.ts';

const ERROR_SELECTOR = '0x08c379a0'; // Error(string)
const PANIC_SELECTOR = '0x4e487b71'; // Panic(uint256)

/** Solidity's panic codes (docs: "Panic via assert and Error via require"). */
const PANICS: Record<number, string> = {
  0x00: 'generic compiler panic', 0x01: 'assertion failed', 0x11: 'arithmetic overflow or underflow',
  0x12: 'division or modulo by zero', 0x21: 'invalid enum value', 0x22: 'invalid storage byte array encoding',
  0x31: 'pop on an empty array', 0x32: 'array index out of bounds', 0x41: 'out of memory',
  0x51: 'call to a zero-initialized function',
};

/** Error(string) → its text; Panic(uint256) → "panic 0x11: …"; any other payload → "custom error 0x<selector>". */
export function decodeRevertReason(data: Hex | null): string | null {
  if (!data || data.length < 10) return null;
  const selector = data.slice(0, 10).toLowerCase();
  const args = `0x${data.slice(10)}` as Hex;
  try {
    if (selector === ERROR_SELECTOR) return decodeAbiParameters([{ type: 'string' }], args)[0];
    if (selector === PANIC_SELECTOR) {
      const [code] = decodeAbiParameters([{ type: 'uint256' }], args);
      return `panic 0x${code.toString(16).padStart(2, '0')}: ${PANICS[Number(code)] ?? 'unknown panic code'}`;
    }
  } catch { /* a malformed payload is reported by its selector */ }
  return `custom error ${selector}`;
}

// EVM failures that a mined transaction would also hit: reverted, not refused.
const VM_FAILURE = /revert|out of gas|gas required exceeds allowance|invalid opcode|invalid jump|stack (?:underflow|overflow)|write protection|return data out of bounds|max call depth|max code size exceeded/i;

export const isVmFailure = (code: number, message: string, data: Hex | null) => code === 3 || data !== null || VM_FAILURE.test(message);

/** A machine code for a node's refusal, for clients to branch on. */
export function simulationErrorCode(message: string): string {
  if (/insufficient funds|insufficientfunds|doesn't have enough funds|upfront cost|insufficient balance/i.test(message)) return 'insufficient_funds';
  if (/intrinsic gas|requires at least \d+ gas|floor data gas/i.test(message)) return 'intrinsic_gas_too_low';
  if (/block gas limit|gas limit too high|gas cap|greater than the cap/i.test(message)) return 'gas_limit_too_high';
  if (/nonce/i.test(message)) return 'nonce_invalid';
  if (/underpriced|base ?fee|fee ?cap|fee per gas/i.test(message)) return 'fee_too_low';
  return 'node_error';
}

const base = (): SimulationResult => ({
  status: 'success', gasUsed: null, revertReason: null, revertData: null, error: null, errorCode: null, errorHumanReadable: null, balanceChanges: [],
});

export function successResult(gasUsed: bigint | null, balanceChanges: BalanceChange[]): SimulationResult {
  return { ...base(), gasUsed, balanceChanges };
}

export function revertedResult(message: string, data: Hex | null, gasUsed: bigint | null, balanceChanges: BalanceChange[] = []): SimulationResult {
  // With revert data (even empty) the data speaks; without, the node's words (out of gas …).
  const fromMessage = message.replace(/^execution reverted:?\s*/i, '').trim();
  const reason = data !== null ? decodeRevertReason(data) : fromMessage === '' ? null : fromMessage;
  return {
    ...base(), status: 'reverted', gasUsed, balanceChanges,
    revertReason: reason, revertData: data && data !== '0x' ? data : null,
    error: message || 'execution reverted', errorCode: 'execution_reverted',
    errorHumanReadable: reason ? `The transaction would revert: ${reason}` : 'The transaction would revert without a reason',
  };
}

export function errorResult(errorCode: string, error: string | null, human: string): SimulationResult {
  return { ...base(), status: 'error', error, errorCode, errorHumanReadable: human };
}

/** For transactions of a bundle that could not be simulated faithfully: never reported as success. */
export const notSimulated = (why: string): SimulationResult => errorResult('not_simulated', null, `Not simulated: ${why}`);

/** What the node checks before running a transaction: balance ≥ value + gas limit × max fee per gas. */
export const maxGasPrice = (f: Fees): bigint => (f.type === 'eip1559' ? f.maxFeePerGas : f.gasPrice);

/** The price a transaction sent now is expected to pay per gas (base fee + tip, or the gas price). */
export const expectedGasPrice = (f: Fees): bigint => (f.type === 'eip1559' ? f.baseFeePerGas + f.maxPriorityFeePerGas : f.gasPrice);

/** The sender's funds check, which nodes skip in eth_call (EDR even for the value): null when it passes. */
export function fundsProblem(balance: bigint, value: bigint, gas: bigint, fees: Fees): SimulationResult | null {
  const need = value + gas * maxGasPrice(fees);
  if (balance >= need) return null;
  return errorResult('insufficient_funds', `insufficient funds for gas * price + value: have ${balance} want ${need}`,
    `The sender's balance (${balance} wei) does not cover the value plus gas × max fee per gas (${need} wei)`);
}

/** Native balance changes, `always` listed even when unchanged, others only when they changed. */
export function balanceChanges(symbol: string, always: Address[], before: Map<string, bigint>, after: Map<string, bigint>): BalanceChange[] {
  const keep = new Set(always.map((a) => a.toLowerCase()));
  for (const [addr, b] of before) if ((after.get(addr) ?? b) !== b) keep.add(addr);
  return [...keep].map((addr) => {
    const b = before.get(addr) ?? 0n;
    const a = after.get(addr) ?? b;
    return { address: getAddress(addr), token: 'native', token_symbol: symbol, before: b.toString(), after: a.toString(), change: (a - b).toString() };
  });
}
