// The node methods simulation uses beyond ChainRpc's own: eth_call and eth_estimateGas with state
// overrides, debug_traceCall with geth's prestateTracer in diff mode, and the checks of which of
// them a node offers. Nodes differ: EDR (Hardhat) has no eth_simulateV1, takes overrides in
// eth_call but not in eth_estimateGas, and ignores stateOverrides in debug_traceCall silently.
import type { Address, Hex } from 'viem';
import { callObject, ChainRpcError, ChainUnavailable, txGasCapOf, type CallArgs, type ChainRpc } from '../../../chains/chain-rpc.ts';
import { MalformedAnswer, readData, readQuantity, toQuantity } from '../../../chains/rpc-hex.ts';

export type StateOverride = Record<string, { balance?: Hex; nonce?: Hex; code?: Hex; stateDiff?: Record<string, Hex> }>;

export type AccountState = { balance?: bigint; nonce?: bigint; code?: Hex; storage?: Record<string, Hex> };
export type PrestateDiff = { pre: Map<string, AccountState>; post: Map<string, AccountState> };

export type CallOutcome = { ok: true } | { ok: false; error: ChainRpcError };

/** The node lacks the method or the parameter shape (or its provider refuses it with HTTP 4xx). */
export function isUnsupported(e: unknown): boolean {
  if (e instanceof ChainUnavailable) return e.reason === 'http_status' && e.httpStatus !== null && e.httpStatus >= 400 && e.httpStatus < 500 && e.httpStatus !== 429;
  if (!(e instanceof ChainRpcError)) return false;
  if (e.code === -32601 || e.code === -32602 || e.code === -32004) return true;
  return /does not exist|not (?:supported|available|enabled|allowed|whitelisted)|unsupported|method not found|unknown method|trailing characters|invalid params/i.test(e.message);
}

/** Runs `run`; when the node's default gas is above its per-transaction cap (EDR), again with the cap. */
async function withGasCap<T>(args: CallArgs, run: (a: CallArgs) => Promise<T>): Promise<T> {
  try {
    return await run(args);
  } catch (e) {
    const cap = args.gas === undefined ? txGasCapOf(e) : null;
    if (cap === null) throw e;
    return run({ ...args, gas: cap });
  }
}

const withOverrides = (args: CallArgs, overrides: StateOverride | undefined): unknown[] =>
  overrides ? [callObject(args), 'latest', overrides] : [callObject(args), 'latest'];

/** eth_call at the latest block; a node-side error is an outcome, an unreachable node throws. */
export async function ethCall(rpc: ChainRpc, chainId: number, args: CallArgs, overrides?: StateOverride): Promise<CallOutcome> {
  try {
    await withGasCap(args, (a) => rpc.request<unknown>(chainId, 'eth_call', withOverrides(a, overrides)));
    return { ok: true };
  } catch (e) {
    if (e instanceof ChainRpcError) return { ok: false, error: e };
    throw e;
  }
}

export async function estimateGas(rpc: ChainRpc, chainId: number, args: CallArgs, overrides?: StateOverride): Promise<bigint> {
  const v = await withGasCap(args, (a) => rpc.request<unknown>(chainId, 'eth_estimateGas', withOverrides(a, overrides)));
  return rpc.read(chainId, 'gas estimate', readQuantity, v);
}

/**
 * debug_traceCall with prestateTracer in diff mode: every account the call changed, before and
 * after. Run without fee fields, so the diff holds value movements only (no gas charged).
 */
export async function traceDiff(rpc: ChainRpc, chainId: number, args: CallArgs, overrides?: StateOverride): Promise<PrestateDiff> {
  const config = { tracer: 'prestateTracer', tracerConfig: { diffMode: true }, ...(overrides ? { stateOverrides: overrides } : {}) };
  const v = await withGasCap(args, (a) => rpc.request<unknown>(chainId, 'debug_traceCall', [callObject(a), 'latest', config]));
  try {
    const o = v as { pre?: unknown; post?: unknown };
    if (!o || typeof o !== 'object') throw new MalformedAnswer('prestate diff is not an object');
    return { pre: readAccounts(o.pre), post: readAccounts(o.post) };
  } catch (e) {
    if (e instanceof MalformedAnswer) throw rpc.malformed(chainId, `debug_traceCall: ${e.message}`);
    throw e;
  }
}

// Accounts no chain has state for: the probe below only reads what the override says.
const PROBE_FROM = '0x5afe00000000000000000000000000000000a001' as Address;
const PROBE_TO = '0x5afe00000000000000000000000000000000a002' as Address;
const PROBE_BALANCE = 0x5afe_0000_0001n;

/** Whether debug_traceCall applies stateOverrides (geth does; EDR ignores them without a word). */
export async function traceHonoursOverrides(rpc: ChainRpc, chainId: number): Promise<boolean> {
  try {
    const diff = await traceDiff(rpc, chainId, { from: PROBE_FROM, to: PROBE_TO, value: 1n, gas: 21_000n },
      { [PROBE_FROM]: { balance: toQuantity(PROBE_BALANCE) } });
    return diff.pre.get(PROBE_FROM)?.balance === PROBE_BALANCE;
  } catch (e) {
    if (e instanceof ChainRpcError || isUnsupported(e)) return false;
    throw e;
  }
}

export async function codeAt(rpc: ChainRpc, chainId: number, address: Address): Promise<Hex> {
  return rpc.read(chainId, 'code', readData, await rpc.request(chainId, 'eth_getCode', [address, 'latest']));
}

function readAccounts(v: unknown): Map<string, AccountState> {
  const out = new Map<string, AccountState>();
  if (v === undefined || v === null) return out;
  if (typeof v !== 'object') throw new MalformedAnswer('prestate accounts are not an object');
  for (const [addr, raw] of Object.entries(v as Record<string, unknown>)) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(addr) || !raw || typeof raw !== 'object') throw new MalformedAnswer('prestate account entry');
    const a = raw as { balance?: unknown; nonce?: unknown; code?: unknown; storage?: unknown };
    const s: AccountState = {};
    if (a.balance !== undefined) s.balance = readQuantity(a.balance, 'prestate balance');
    // geth writes the nonce as a JSON number, others as a quantity.
    if (a.nonce !== undefined) s.nonce = typeof a.nonce === 'number' && Number.isSafeInteger(a.nonce) && a.nonce >= 0 ? BigInt(a.nonce) : readQuantity(a.nonce, 'prestate nonce');
    if (a.code !== undefined) s.code = readData(a.code, 'prestate code');
    if (a.storage !== undefined) {
      if (!a.storage || typeof a.storage !== 'object') throw new MalformedAnswer('prestate storage');
      s.storage = {};
      for (const [slot, value] of Object.entries(a.storage as Record<string, unknown>)) s.storage[slot.toLowerCase()] = readData(value, 'prestate storage value');
    }
    out.set(addr.toLowerCase(), s);
  }
  return out;
}
