// Building an XRP transaction from the ledger's current facts (issue 33 §1), before it is signed:
//   Sequence            the sender's next sequence (account_info on the current ledger), skipping
//                       the sequences the agent's recorded, still open transactions hold (they are
//                       reserved in the statement that records each one, family-transaction-
//                       repository.ts, as `seq:<account>:<n>`), taking the lowest free one so a gap
//                       left by an ended transaction is filled;
//   Fee                 the server's open-ledger fee (at least the base fee; read at most every 10 s), capped at FEE_CAP_DROPS:
//                       above the cap the transaction is sent at the cap and waits in the server's
//                       queue; if it is not validated by its LastLedgerSequence it ends failed;
//   LastLedgerSequence  the open ledger + LEDGER_MARGIN (about a minute at 3-4 s a ledger): after it
//                       the transaction can never be validated, so it ends failed (never re-signed).
// A Payment checks what the ledger would refuse: the sender's spendable XRP above its reserve, a
// destination's lsfRequireDestTag, a new destination's base reserve.
import { invalidField } from '../../../errors.ts';
import type { FamilyNetwork, FamilySender, TransferIntent } from '../chain-family.ts';
import { LSF_REQUIRE_DEST_TAG, type XrpRpc } from './xrp-rpc.ts';
import { belowBaseReserve, destinationTagRequired, feeAboveCap, insufficientXrp } from './xrp-problems.ts';
import type { XrplTxJson } from './xrp-signing.ts';

/** The most this service pays as one transaction's Fee, in drops (0.005 XRP; the base fee is 10 drops). */
export const FEE_CAP_DROPS = 5_000n;
/** Ledgers after the open one during which the transaction may be validated. */
export const LEDGER_MARGIN = 20;

/** How long the server's fee and reserves are kept per network (they change rarely; a fee a little stale stays under the cap). */
const FEE_TTL_MS = 10_000;
const RESERVES_TTL_MS = 300_000;
const kept = new Map<string, { at: number; value: Promise<unknown> }>();

/** `read` at most once per `ttlMs` per key (a failed read is not kept). */
function keptFor<T>(key: string, ttlMs: number, read: () => Promise<T>): Promise<T> {
  const k = kept.get(key);
  if (k && Date.now() - k.at < ttlMs) return k.value as Promise<T>;
  const value = read();
  kept.set(key, { at: Date.now(), value });
  value.catch(() => { if (kept.get(key)?.value === value) kept.delete(key); });
  return value;
}

/** The reservation key of an account's sequence (kept with the coins Bitcoin reserves). */
export const sequenceKey = (account: string, sequence: number) => `seq:${account}:${sequence}`;

/** The lowest sequence at or after the account's that no open transaction of the agent holds. */
export function nextFreeSequence(account: string, accountSequence: number, reserved: ReadonlySet<string>): number {
  let s = accountSequence;
  while (reserved.has(sequenceKey(account, s))) s++;
  return s;
}

export type XrpCommon = { Sequence: number; Fee: string; LastLedgerSequence: number };

/** What the ledger decides for any transaction of `from`: Sequence, Fee, LastLedgerSequence; with the sender's account. */
export async function commonFields(rpc: XrpRpc, from: FamilySender, reserved: ReadonlySet<string>) {
  const [account, fee, current] = await Promise.all([rpc.account(from.address, 'current'), keptFor(`fee|${rpc.url}`, FEE_TTL_MS, () => rpc.fee()), rpc.currentLedger()]);
  const wanted = fee.openLedger > fee.base ? fee.openLedger : fee.base;
  const common: XrpCommon = {
    Sequence: nextFreeSequence(from.address, account?.sequence ?? 0, reserved),
    Fee: (wanted > FEE_CAP_DROPS ? FEE_CAP_DROPS : wanted).toString(),
    LastLedgerSequence: current + LEDGER_MARGIN,
  };
  return { account, common };
}

/** Memo text as the ledger carries it (MemoData hex, MemoType text/plain). */
const memoOf = (text: string) => [{ Memo: { MemoType: Buffer.from('text/plain').toString('hex').toUpperCase(), MemoData: Buffer.from(text, 'utf8').toString('hex').toUpperCase() } }];

/** The Payment of `intent.amount` drops, ready to sign. */
export async function buildPayment(rpc: XrpRpc, net: FamilyNetwork, from: FamilySender, intent: TransferIntent, reserved: ReadonlySet<string>): Promise<{ tx: XrplTxJson; fee: bigint }> {
  if (intent.to === from.address) throw invalidField('to', 'is the agent\'s own address');
  const [{ account, common }, destination, reserves] = await Promise.all([
    commonFields(rpc, from, reserved), rpc.account(intent.to, 'validated'), keptFor(`reserves|${rpc.url}`, RESERVES_TTL_MS, () => rpc.reserves()),
  ]);
  const fee = BigInt(common.Fee);
  const spendable = account === null ? 0n : account.balance - reserves.base - BigInt(account.ownerCount) * reserves.owner;
  if (spendable < intent.amount + fee) throw insufficientXrp(net.name, from.address, spendable < 0n ? 0n : spendable, intent.amount + fee);
  if (destination === null && intent.amount < reserves.base) throw belowBaseReserve(intent.to, intent.amount, reserves.base);
  if (destination !== null && (destination.flags & LSF_REQUIRE_DEST_TAG) !== 0 && intent.destinationTag === undefined) throw destinationTagRequired(intent.to);
  const tx: XrplTxJson = {
    TransactionType: 'Payment', Account: from.address, Destination: intent.to, Amount: intent.amount.toString(), Flags: 0, ...common,
    ...(intent.destinationTag !== undefined ? { DestinationTag: intent.destinationTag } : {}),
    ...(intent.memo !== undefined ? { Memos: memoOf(intent.memo) } : {}),
  };
  return { tx, fee };
}

/**
 * A provided transaction (xrpl_tx_json) completed from the ledger where it leaves a field out:
 * Sequence, Fee (one it names must be within the cap), LastLedgerSequence. A provided Sequence is
 * kept as given (the caller orders its own transactions).
 */
export async function completeProvided(rpc: XrpRpc, from: FamilySender, provided: XrplTxJson, reserved: ReadonlySet<string>): Promise<{ tx: XrplTxJson; fee: bigint }> {
  const { common } = await commonFields(rpc, from, reserved);
  const tx: XrplTxJson = { ...provided };
  if (tx.Sequence === undefined && tx.TicketSequence === undefined) tx.Sequence = common.Sequence;
  if (tx.Fee === undefined) tx.Fee = common.Fee;
  if (tx.LastLedgerSequence === undefined) tx.LastLedgerSequence = common.LastLedgerSequence;
  if (typeof tx.Fee !== 'string' || !/^[0-9]{1,20}$/.test(tx.Fee)) throw invalidField('xrpl_tx_json', 'Fee must be drops as a decimal string');
  const fee = BigInt(tx.Fee);
  if (fee > FEE_CAP_DROPS) throw feeAboveCap(fee, FEE_CAP_DROPS);
  return { tx, fee };
}
