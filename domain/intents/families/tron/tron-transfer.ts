// A Tron transfer built from the node's facts, unsigned:
//   TRX:    a TransferContract (amount in sun) built here, on the node's head block as its
//           reference block (getnowblock) and expiring TRON_EXPIRATION_MS after that block's time.
//   TRC-20: `transfer(address,uint256)` on the token contract (`token_mint`: the contract's T…
//           address), asked of the node with triggersmartcontract under `fee_limit_sun` (default
//           100 TRX, at most 1000 TRX: the most TRX the call may burn for energy). The node's
//           answer is decoded and its txID recomputed; it must be exactly the call asked for
//           (owner, contract, calldata, no TRX or TRC-10 value, the fee limit, one contract), else
//           nothing is signed. The transaction signed is then built here from the same parts,
//           on the node's reference block, with this service's expiration.
// The sender's balance (TRX, or the token's balanceOf) is checked first: 422 when short.
import { ChainUnavailable } from '../../../chains/rpc-errors.ts';
import { invalidField } from '../../../errors.ts';
import type { FamilyNetwork, FamilySender, TransferIntent } from '../chain-family.ts';
import { formatUnits } from '../units.ts';
import { tronHex, tronHexOf } from './tron-address.ts';
import type { NowBlock, TronHttp, TronTransactionJson } from './tron-http.ts';
import { insufficientTrc20, insufficientTrx } from './tron-problems.ts';
import { buildTransaction, checkTransactionJson, referenceOf, type RawFields } from './tron-transaction.ts';

/** How long after the reference block's time a transaction may still be taken (Tron allows up to 24 h). */
export const TRON_EXPIRATION_MS = 10 * 60_000;
export const DEFAULT_FEE_LIMIT_SUN = 100_000_000n;
export const MAX_FEE_LIMIT_SUN = 1_000_000_000n;
const TRANSFER_SELECTOR = 'transfer(address,uint256)';
const TRANSFER_ID = 'a9059cbb';

export type UnsignedTransfer = { tx: TronTransactionJson; details: Record<string, string | number | boolean | null> };

const word = (n: bigint) => n.toString(16).padStart(64, '0');
/** An address as an ABI word: its 20 bytes without the 0x41 prefix. */
const addressWord = (hex41: string) => hex41.slice(2).padStart(64, '0');

function rawFields(head: NowBlock, feeLimit?: bigint): RawFields {
  return { ...referenceOf(head), expiration: head.timestamp + TRON_EXPIRATION_MS, timestamp: Date.now(), ...(feeLimit !== undefined ? { fee_limit: Number(feeLimit) } : {}) };
}

export async function buildTrxTransfer(node: TronHttp, net: FamilyNetwork, from: FamilySender, intent: TransferIntent): Promise<UnsignedTransfer> {
  if (intent.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidField('value', 'is more TRX than exists');
  const [balance, head] = await Promise.all([node.balance(from.address), node.nowBlock()]);
  if (balance < intent.amount) throw insufficientTrx(net.name, from.address, balance, intent.amount);
  const tx = buildTransaction({
    type: 'TransferContract', value: { owner_address: tronHex(from.address), to_address: tronHexOf(intent.to, 'to'), amount: Number(intent.amount) },
  }, rawFields(head));
  return { tx, details: { kind: 'trx', expiration: tx.raw_data.expiration as number, refBlock: Number(head.number) } };
}

export async function buildTrc20Transfer(node: TronHttp, net: FamilyNetwork, from: FamilySender, intent: TransferIntent): Promise<UnsignedTransfer> {
  const contract = tronHexOf(intent.tokenMint, 'token_mint');
  const to = tronHexOf(intent.to, 'to');
  const owner = tronHex(from.address);
  const feeLimit = intent.feeLimitSun ?? DEFAULT_FEE_LIMIT_SUN;
  if (feeLimit <= 0n || feeLimit > MAX_FEE_LIMIT_SUN) throw invalidField('fee_limit_sun', `must be from 1 to ${MAX_FEE_LIMIT_SUN} sun (${formatUnits(MAX_FEE_LIMIT_SUN, 6)} TRX)`);
  if (intent.amount >= 2n ** 256n) throw invalidField('value', 'is beyond a uint256');
  const balanceWord = await node.constantCall({ owner_address: owner, contract_address: contract, function_selector: 'balanceOf(address)', parameter: addressWord(owner) });
  const tokenBalance = balanceWord === '' ? 0n : BigInt('0x' + balanceWord.slice(0, 64));
  if (tokenBalance < intent.amount) throw insufficientTrc20(net.name, from.address, intent.tokenMint!, tokenBalance, intent.amount, intent.tokenDecimals ?? 6);
  const parameter = addressWord(to) + word(intent.amount);
  const built = await node.triggerSmartContract({
    owner_address: owner, contract_address: contract, function_selector: TRANSFER_SELECTOR, parameter, fee_limit: Number(feeLimit), call_value: 0,
  });
  const reference = checkNodeCall(net, built, { owner, contract, data: TRANSFER_ID + parameter, feeLimit });
  // The node's clock throughout: its expiration (java-tron: 60 s) stretched to TRON_EXPIRATION_MS after its timestamp.
  const head = { ...reference, expiration: Math.max(reference.expiration, reference.timestamp + TRON_EXPIRATION_MS) };
  const tx = buildTransaction({ type: 'TriggerSmartContract', value: { owner_address: owner, contract_address: contract, data: TRANSFER_ID + parameter } },
    { ...head, fee_limit: Number(feeLimit) });
  return { tx, details: { kind: 'trc20', expiration: head.expiration, feeLimitSun: feeLimit.toString(), tokenDecimals: intent.tokenDecimals ?? 6 } };
}

/** The node's transaction must be exactly the asked call; its reference block and time are then used. */
function checkNodeCall(net: FamilyNetwork, tx: TronTransactionJson, want: { owner: string; contract: string; data: string; feeLimit: bigint }): RawFields {
  const refuse = (why: string) => new ChainUnavailable(net.chainId, net.name, 'bad_response', `/wallet/triggersmartcontract: the node's transaction ${why}; nothing was signed`);
  let d;
  try { d = checkTransactionJson(tx); } catch (e) { throw refuse((e as Error).message); }
  const c = d.contracts[0];
  if (d.contracts.length !== 1 || !c || c.type !== 'TriggerSmartContract' || !('contract' in c)) throw refuse('is not one TriggerSmartContract');
  if (c.owner !== want.owner || c.contract !== want.contract || c.data !== want.data.toLowerCase()) throw refuse('is not the asked call');
  if (c.callValue !== 0n || c.callTokenValue !== 0n || c.tokenId !== 0n || d.permissionIds[0] !== 0 || d.memo !== '') throw refuse('carries value, a permission or a memo');
  if (BigInt(d.feeLimit) !== want.feeLimit) throw refuse('has another fee_limit');
  if (!/^[0-9a-f]{4}$/.test(d.refBlockBytes) || !/^[0-9a-f]{16}$/.test(d.refBlockHash)) throw refuse('has no reference block');
  return { ref_block_bytes: d.refBlockBytes, ref_block_hash: d.refBlockHash, expiration: d.expiration, timestamp: d.timestamp };
}
