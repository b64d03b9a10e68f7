// After signing: sending the bytes and reading where they stand. Confirmation is by signature
// status. Commitment: a network whose `confirmations` is 1 (or less) counts a transaction once
// it is `confirmed` (a supermajority of stake voted on its block; no confirmed block has been
// rolled back on mainnet), one asking for more waits for `finalized` (rooted, ≥ 31 blocks on top).
// Expiry is proven, not guessed: the finalized block height is read FIRST, then the status; when
// that height is past the blockhash's lastValidBlockHeight, every block that could hold the
// transaction is finalized, so a status the node does not know means the network never took it
// and never will: the caller may rebuild and re-sign. Otherwise it stays pending.
import type { BroadcastVerdict, FamilyNetwork, SignedTransfer, TransferStatus } from '../chain-family.ts';
import { SolanaRpcError, type SolanaRpc } from './solana-rpc.ts';

/** Counted as confirmations once a transaction is finalized (Solana reports none then). */
export const FINALIZED_CONFIRMATIONS = 32;

const ALREADY_PROCESSED = /already (?:been )?processed|AlreadyProcessed/i;
const BLOCKHASH_NOT_FOUND = /blockhash not found|BlockhashNotFound/i;

/** The commitment a transaction must reach on `net` to count as confirmed. */
export const requiredCommitment = (net: FamilyNetwork): 'confirmed' | 'finalized' => (net.confirmations > 1 ? 'finalized' : 'confirmed');

/** The preflight error the node attached (`data.err`), as text, for matching. */
function preflightErr(e: SolanaRpcError): string {
  const data = e.solanaData as { err?: unknown } | null;
  return data && typeof data === 'object' && 'err' in data ? JSON.stringify(data.err) : '';
}

/**
 * Sends the signed bytes with preflight. "Already processed": the chain has them, sent. Blockhash
 * not found: not permanent (the node may lag, or the blockhash expired: status() decides which).
 * Any other refusal is permanent for these bytes. An unreachable node throws ChainUnavailable.
 */
export async function broadcastTransaction(rpc: SolanaRpc, raw: string): Promise<BroadcastVerdict> {
  try {
    await rpc.sendTransaction(raw);
    return { sent: true };
  } catch (e) {
    if (!(e instanceof SolanaRpcError)) throw e;
    const err = preflightErr(e);
    if (ALREADY_PROCESSED.test(e.message) || ALREADY_PROCESSED.test(err)) return { sent: true };
    const reason = `${e.message}${err && !e.message.includes(err) ? ` (${err})` : ''}`.slice(0, 500);
    if (BLOCKHASH_NOT_FOUND.test(e.message) || BLOCKHASH_NOT_FOUND.test(err)) return { sent: false, permanent: false, reason };
    return { sent: false, permanent: true, reason };
  }
}

function lastValidOf(details: SignedTransfer['details']): bigint | null {
  const v = details.lastValidBlockHeight;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  return null;
}

/** Where `signature` stands on `net` (see the header for confirmed and expired). */
export async function transactionStatus(rpc: SolanaRpc, net: FamilyNetwork, signature: string, details: SignedTransfer['details']): Promise<TransferStatus> {
  const lastValid = lastValidOf(details);
  const finalizedHeight = lastValid === null ? null : await rpc.blockHeight('finalized');
  const s = await rpc.signatureStatus(signature);
  if (s === null) {
    return finalizedHeight !== null && lastValid !== null && finalizedHeight > lastValid ? { state: 'expired' } : { state: 'pending' };
  }
  // A processed-only status may still be on a minority fork: not yet a verdict either way.
  if (s.confirmationStatus !== 'confirmed' && s.confirmationStatus !== 'finalized') return { state: 'pending' };
  if (s.err !== null) return { state: 'failed', reason: `transaction failed on chain: ${JSON.stringify(s.err)}`.slice(0, 500), block: s.slot };
  if (s.confirmationStatus === 'finalized') return { state: 'confirmed', confirmations: Math.max(net.confirmations, FINALIZED_CONFIRMATIONS), block: s.slot };
  if (requiredCommitment(net) === 'finalized') return { state: 'pending' };
  return { state: 'confirmed', confirmations: Math.max(1, (s.confirmations ?? 0) + 1), block: s.slot };
}
