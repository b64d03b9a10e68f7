// How a Bitcoin node's refusal of `sendrawtransaction` reads (pure). Phrases of btcd 0.24 and
// Bitcoin Core ≥ 0.21, which word the same cases differently:
//   known:     the node has these bytes already (mempool or chain): they are sent.
//   inputs:    an input is missing or spent (btcd "orphan transaction … references outputs of
//              unknown or fully-spent transaction", Core "bad-txns-inputs-missingorspent" /
//              "missing-inputs"): the bytes may be ours already mined, or a parent not yet
//              relayed, or a double spend; the caller asks the node which (bitcoin-family.ts).
//   conflict:  another transaction in the mempool spends the same coin and this one does not
//              replace it: the coin is gone to the other one.
//   transient: the node's fee floor, a full pool, a long unconfirmed chain, rate limits: the same
//              bytes may be taken later.
//   permanent: everything else the node rejected by its rules (script, standardness, dust,
//              malformed bytes): the same bytes never will.
import type { ChainRpcError } from '../../../chains/rpc-errors.ts';

export type RefusalKind = 'known' | 'inputs' | 'conflict' | 'transient' | 'permanent';

const KNOWN = /already have transaction|transaction already exists|already in (?:the )?block ?chain|txn-already-in-mempool|txn-already-known/i;
const INPUTS = /orphan transaction|missing ?inputs|inputs-missingorspent|fully-spent|missing-inputs/i;
const CONFLICT = /already spent in mempool|txn-mempool-conflict|replacement transaction|insufficient fee|replacement-adds-unconfirmed|too many potential replacements|rejecting replacement/i;
const TRANSIENT = /min relay fee|mempool min fee|under the required amount|insufficient priority|rate limit|mempool full|too-long-mempool-chain|too many unconfirmed|too-long|non-final|non-bip68-final|premature|segwit isn't active|try again|warmup|loading/i;
// btcd: TX decode / rule errors; Core: RPC_DESERIALIZATION_ERROR (-22), RPC_VERIFY_REJECTED (-26), RPC_VERIFY_ERROR (-25), already in chain (-27).
const REJECTING_CODES = new Set([-22, -25, -26, -27]);

export function refusalKind(e: ChainRpcError): RefusalKind {
  const m = e.message;
  if (KNOWN.test(m) || e.code === -27) return 'known';
  if (INPUTS.test(m)) return 'inputs';
  if (CONFLICT.test(m)) return 'conflict';
  if (TRANSIENT.test(m)) return 'transient';
  return REJECTING_CODES.has(e.code) ? 'permanent' : 'transient';
}
