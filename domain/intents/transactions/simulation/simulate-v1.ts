// A bundle in one eth_simulateV1 request (geth ≥ 1.14.9, Nethermind, Reth, Erigon, Besu): all
// calls in one simulated block, in order, each on the state the previous ones left. validation is
// off (no nonces or fees needed; the node charges no gas) and traceTransfers on: the node reports
// every native transfer, top-level and internal, as a log of 0xeeee…eeee, from which the balance
// changes follow; the gas at the expected price is charged by this code, as in the call-by-call path.
import type { Address, Hex } from 'viem';
import { ChainRpcError } from '../../../chains/chain-rpc.ts';
import { isHexData, MalformedAnswer, readData, readQuantity, toQuantity } from '../../../chains/rpc-hex.ts';
import { isUnsupported } from './node-calls.ts';
import {
  balanceChanges, errorResult, expectedGasPrice, fundsProblem, notSimulated, revertedResult, simulationErrorCode, successResult,
} from './outcomes.ts';
import type { SimContext } from './sequential.ts';
import type { SimulationRequest, SimulationResult } from './simulation-provider.ts';

const TRANSFER_LOG_ADDRESS = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'; // Transfer(address,address,uint256)

type Transfer = { from: string; to: string; value: bigint };
type CallResult = { success: boolean; gasUsed: bigint; error: { message: string; data: Hex | null } | null; transfers: Transfer[] };

/** The results, or null when the node has no eth_simulateV1 (the caller falls back). */
export async function simulateWithV1(ctx: SimContext, reqs: SimulationRequest[]): Promise<SimulationResult[] | null> {
  const calls = reqs.map((r) => ({
    from: r.from, to: r.to, value: toQuantity(r.value),
    ...(r.data !== undefined ? { input: r.data } : {}),
    ...(r.gasLimit !== undefined ? { gas: toQuantity(r.gasLimit) } : {}),
  }));
  let answer: unknown;
  try {
    answer = await ctx.rpc.request(ctx.chainId, 'eth_simulateV1', [{ blockStateCalls: [{ calls }], traceTransfers: true, validation: false }, 'latest']);
  } catch (e) {
    if (isUnsupported(e)) return null;
    if (!(e instanceof ChainRpcError)) throw e;
    // Refused as a whole (geth -38014 when a sender cannot pay a value, -38013 intrinsic gas): nothing ran.
    const code = simulationErrorCode(e.message);
    return reqs.map(() => errorResult(code, e.message, `The node refused the bundle as a whole: ${e.message}`));
  }
  let results: CallResult[];
  try {
    results = readBlock(answer, reqs.length);
  } catch (e) {
    if (e instanceof MalformedAnswer) throw ctx.rpc.malformed(ctx.chainId, `eth_simulateV1: ${e.message}`);
    throw e;
  }

  const parties = new Set<string>();
  for (const r of reqs) { parties.add(r.from.toLowerCase()); parties.add(r.to.toLowerCase()); }
  for (const c of results) for (const t of c.transfers) { parties.add(t.from); parties.add(t.to); }
  const ledger = new Map<string, bigint>(await Promise.all([...parties].map(
    async (a) => [a, await ctx.rpc.balance(ctx.chainId, a as Address)] as const)));

  const out: SimulationResult[] = [];
  for (const [i, req] of reqs.entries()) {
    const c = results[i]!;
    const before = new Map(ledger);
    const from = req.from.toLowerCase();
    // The node ran it without checking fees; a real node would refuse it, so what follows is moot.
    const funds = fundsProblem(ledger.get(from)!, req.value, req.gasLimit ?? c.gasUsed, ctx.fees);
    if (funds) {
      out.push(funds);
      while (out.length < reqs.length) out.push(notSimulated(`transaction ${i + 1} of the bundle would not be accepted, so the state the later ones would see is not known`));
      break;
    }
    for (const t of c.transfers) {
      ledger.set(t.from, ledger.get(t.from)! - t.value);
      ledger.set(t.to, ledger.get(t.to)! + t.value);
    }
    ledger.set(from, ledger.get(from)! - c.gasUsed * expectedGasPrice(ctx.fees));
    const changes = balanceChanges(ctx.symbol, [req.from, req.to], before, ledger);
    out.push(c.success ? successResult(c.gasUsed, changes) : revertedResult(c.error?.message ?? 'execution reverted', c.error?.data ?? null, c.gasUsed, changes));
  }
  return out;
}

function readBlock(answer: unknown, n: number): CallResult[] {
  if (!Array.isArray(answer) || answer.length !== 1 || !answer[0] || typeof answer[0] !== 'object') throw new MalformedAnswer('not one block');
  const calls = (answer[0] as { calls?: unknown }).calls;
  if (!Array.isArray(calls) || calls.length !== n) throw new MalformedAnswer(`not ${n} call results`);
  return calls.map((raw) => {
    if (!raw || typeof raw !== 'object') throw new MalformedAnswer('call result is not an object');
    const c = raw as { status?: unknown; gasUsed?: unknown; maxUsedGas?: unknown; error?: unknown; logs?: unknown };
    const status = readQuantity(c.status, 'call status');
    if (status > 1n) throw new MalformedAnswer('call status is neither 0x0 nor 0x1');
    const err = c.error && typeof c.error === 'object' ? c.error as { message?: unknown; data?: unknown } : null;
    return {
      success: status === 1n,
      // maxUsedGas (newer geth): the most the call held at once, closer to the gas limit it needs.
      gasUsed: readQuantity(c.maxUsedGas ?? c.gasUsed, 'call gas used'),
      error: err ? { message: typeof err.message === 'string' ? err.message : '', data: isHexData(err.data) ? err.data : null } : null,
      transfers: readTransfers(c.logs),
    };
  });
}

function readTransfers(logs: unknown): Transfer[] {
  if (logs === undefined || logs === null) return [];
  if (!Array.isArray(logs)) throw new MalformedAnswer('logs is not an array');
  const out: Transfer[] = [];
  for (const l of logs as { address?: unknown; topics?: unknown; data?: unknown }[]) {
    if (typeof l?.address !== 'string' || l.address.toLowerCase() !== TRANSFER_LOG_ADDRESS) continue;
    const topics = Array.isArray(l.topics) ? l.topics : [];
    if (typeof topics[0] !== 'string' || topics[0].toLowerCase() !== TRANSFER_TOPIC || topics.length !== 3) continue;
    out.push({ from: topicAddress(topics[1]), to: topicAddress(topics[2]), value: readQuantity(l.data, 'transfer value') });
  }
  return out;
}

function topicAddress(t: unknown): string {
  const hex = readData(t, 'transfer topic');
  if (hex.length !== 66) throw new MalformedAnswer('transfer topic is not 32 bytes');
  return `0x${hex.slice(26)}`.toLowerCase();
}
