// Simulation call by call: one transaction, or a bundle on a node without eth_simulateV1.
// Each transaction: eth_call for the outcome (revert reason included), eth_estimateGas for the gas,
// the sender's funds check (EDR skips it in eth_call), and its native balance changes: exact from
// debug_traceCall's prestate diff where the node has it, else value ± gas × expected price for the
// sender and the recipient. A bundle carries each transaction's effects to the next as eth_call
// state overrides. They are known exactly only from a trace the node ran on the carried state, or
// by arithmetic for a plain transfer to an account without code; when neither holds (a contract
// call on EDR, say), the rest of the bundle is reported as not simulated, never as success.
import { ChainRpcError, type CallArgs, type ChainRpc, type Fees } from '../../../chains/chain-rpc.ts';
import { CarriedState } from './carried-state.ts';
import { ethCall, estimateGas, isUnsupported, traceDiff, type PrestateDiff, type StateOverride } from './node-calls.ts';
import {
  balanceChanges, errorResult, expectedGasPrice, fundsProblem, isVmFailure, notSimulated, revertedResult,
  simulationErrorCode, successResult,
} from './outcomes.ts';
import type { SimulationRequest, SimulationResult } from './simulation-provider.ts';

/** What the chain's node offers, learnt on first use (undefined: not yet known). */
export type Capabilities = { simulateV1?: boolean; traceDiff?: boolean; traceOverrides?: boolean; estimateOverrides?: boolean };

export type SimContext = { rpc: ChainRpc; chainId: number; symbol: string; fees: Fees; caps: Capabilities };

/** `uncarried`: why the transaction's effects could not be carried to the next one (null: they were). */
type Step = { result: SimulationResult; uncarried: string | null };

const NO_SEQUENCE = "the chain's node has no eth_simulateV1 and cannot trace calls on carried state";

export async function simulateInSequence(ctx: SimContext, reqs: SimulationRequest[]): Promise<SimulationResult[]> {
  const state = new CarriedState(ctx.rpc, ctx.chainId);
  const out: SimulationResult[] = [];
  for (const [i, req] of reqs.entries()) {
    const step = await simulateStep(ctx, req, state, i < reqs.length - 1);
    out.push(step.result);
    const why = step.result.status !== 'success'
      ? `transaction ${i + 1} of the bundle would ${step.result.status === 'reverted' ? 'revert' : 'not be accepted'}, so the state the later ones would see is not known`
      : step.uncarried !== null ? `the effects of transaction ${i + 1} could not be carried to the later ones: ${step.uncarried}` : null;
    if (why !== null && i < reqs.length - 1) {
      for (let k = i + 1; k < reqs.length; k++) out.push(notSimulated(why));
      break;
    }
  }
  return out;
}

async function simulateStep(ctx: SimContext, req: SimulationRequest, state: CarriedState, needEffects: boolean): Promise<Step> {
  const { rpc, chainId, fees } = ctx;
  const overrides = state.toRpc();
  const args = { from: req.from, to: req.to, value: req.value, data: req.data, gas: req.gasLimit };
  const [call, fromBefore, toBefore] = await Promise.all([
    ethCall(rpc, chainId, args, overrides), state.balance(req.from), state.balance(req.to),
  ]);

  if (!call.ok) {
    const e = call.error;
    if (!isVmFailure(e.code, e.message, e.data)) return { result: refused(e), uncarried: null };
    // A node would refuse before running it when even the value (and the given gas) is not covered.
    const funds = fundsProblem(fromBefore, req.value, req.gasLimit ?? 0n, fees);
    return { result: funds ?? revertedResult(e.message, e.data, null), uncarried: null };
  }

  let gas: bigint | null;
  try {
    gas = await estimate(ctx, args, overrides);
  } catch (e) {
    if (!(e instanceof ChainRpcError)) throw e;
    // eth_call passed but the estimate failed: report it, never a success without gas.
    return { result: isVmFailure(e.code, e.message, e.data) ? revertedResult(e.message, e.data, null) : refused(e), uncarried: null };
  }
  const funds = fundsProblem(fromBefore, req.value, req.gasLimit ?? gas ?? 0n, fees);
  if (funds) return { result: funds, uncarried: null };

  const fee = (gas ?? 0n) * expectedGasPrice(fees);
  const diff = await trace(ctx, args, state, overrides);
  const before = new Map<string, bigint>([[req.from.toLowerCase(), fromBefore], [req.to.toLowerCase(), toBefore]]);
  const after = new Map<string, bigint>();
  if (diff) {
    for (const [addr, s] of diff.pre) if (!before.has(addr) && s.balance !== undefined) before.set(addr, s.balance);
    for (const [addr, s] of diff.post) if (s.balance !== undefined) after.set(addr, s.balance);
  } else {
    after.set(req.to.toLowerCase(), toBefore + req.value);
    after.set(req.from.toLowerCase(), (req.from.toLowerCase() === req.to.toLowerCase() ? fromBefore : fromBefore - req.value));
  }
  const from = req.from.toLowerCase();
  after.set(from, (after.get(from) ?? fromBefore) - fee); // the trace ran without fees
  const result = successResult(gas, balanceChanges(ctx.symbol, [req.from, req.to], before, after));
  if (!needEffects) return { result, uncarried: null };
  if (gas === null) return { result, uncarried: 'its gas, and so its fee, is not known' };

  if (diff) {
    state.apply(diff.post);
  } else {
    // Without a trace only a plain transfer's effects are known: code at `to` could do anything.
    if (await state.hasCode(req.to)) return { result, uncarried: `it calls a contract, and ${NO_SEQUENCE}` };
    state.setBalance(req.to, after.get(req.to.toLowerCase())!);
  }
  state.setBalance(req.from, after.get(from)!);
  return { result, uncarried: null };
}

/** eth_estimateGas on the carried state; a node without overrides in estimates (EDR) is asked without them. */
async function estimate(ctx: SimContext, args: CallArgs, overrides: StateOverride | undefined): Promise<bigint | null> {
  if (overrides && ctx.caps.estimateOverrides !== false) {
    try {
      const gas = await estimateGas(ctx.rpc, ctx.chainId, args, overrides);
      ctx.caps.estimateOverrides = true;
      return gas;
    } catch (e) {
      if (!isUnsupported(e)) throw e;
      ctx.caps.estimateOverrides = false;
    }
  }
  if (!overrides) return estimateGas(ctx.rpc, ctx.chainId, args);
  // The outcome came from eth_call on the carried state; gas on the chain's state is an estimate
  // of it, and when even that fails the gas is reported unknown rather than guessed.
  try { return await estimateGas(ctx.rpc, ctx.chainId, args); } catch (e) {
    if (e instanceof ChainRpcError) return args.gas ?? null;
    throw e;
  }
}

/** The prestate diff, when the node traces and (for carried state) applies the overrides. */
async function trace(ctx: SimContext, args: CallArgs, state: CarriedState, overrides: StateOverride | undefined): Promise<PrestateDiff | null> {
  if (ctx.caps.traceDiff === false || (!state.empty && ctx.caps.traceOverrides !== true)) return null;
  try {
    const diff = await traceDiff(ctx.rpc, ctx.chainId, args, overrides);
    ctx.caps.traceDiff = true;
    return diff;
  } catch (e) {
    if (isUnsupported(e)) ctx.caps.traceDiff = false;
    else if (!(e instanceof ChainRpcError)) throw e;
    return null; // a trace that fails for this call only: fall back to arithmetic
  }
}

function refused(e: ChainRpcError): SimulationResult {
  const code = simulationErrorCode(e.message);
  const human = code === 'insufficient_funds' ? "The sender's balance does not cover the value plus gas" : `The node would not accept the transaction: ${e.message}`;
  return errorResult(code, e.message, human);
}
