// How a chain's node failing shows to the caller of the Intents API: a node that cannot be
// reached (or answers garbage) is the service's trouble, 503 with Retry-After; a node that refuses
// to estimate or simulate the transaction (it would revert, the sender lacks funds) is about the
// transaction, 422 with the node's own words. Anything else passes unchanged.
import { ChainRpcError, ChainUnavailable } from '../../chains/chain-rpc.ts';
import { Problem } from '../../errors.ts';

export function chainProblem(e: unknown): unknown {
  if (e instanceof ChainUnavailable) {
    return new Problem(503, `${e.message}; nothing was signed, try again shortly`, { type: 'chain_unavailable', title: 'Chain Unavailable', headers: { 'Retry-After': '5' } });
  }
  if (e instanceof ChainRpcError) {
    return new Problem(422, `The chain's node refused the transaction (${e.method}): ${e.message.slice(0, 500)}; nothing was signed`, {
      type: 'chain_refused', title: 'Chain Refused', extras: { rpc_error_code: e.code },
    });
  }
  return e;
}

/** Runs `work`, turning chain failures into problems (above). */
export async function withChainProblems<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw chainProblem(e);
  }
}
