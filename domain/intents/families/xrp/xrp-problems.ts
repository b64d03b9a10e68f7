// The 4xx problems an XRP transfer can meet before anything is signed, as the ledger itself would
// refuse it: the sender cannot pay the amount and fee above its reserve (tecUNFUNDED_PAYMENT), the
// destination demands a destination tag (lsfRequireDestTag: tecDST_TAG_NEEDED), a new account
// would receive less than the base reserve (tecNO_DST_INSUF_XRP), a provided transaction is not
// the agent's or not allowed. Amounts in drops as strings, as the other families' problems.
import { Problem } from '../../../errors.ts';
import { formatUnits } from '../units.ts';

const xrp = (drops: bigint) => formatUnits(drops, 6);

export function insufficientXrp(net: string, from: string, spendable: bigint, required: bigint): Problem {
  return new Problem(422, `Not signed: ${from} can spend ${xrp(spendable)} XRP on ${net} above its reserve, less than the amount and fee (${xrp(required)} XRP)`, {
    type: 'insufficient_funds', title: 'Insufficient Funds', extras: { spendable_drops: spendable.toString(), required_drops: required.toString() },
  });
}

export const destinationTagRequired = (to: string): Problem => new Problem(422,
  `Not signed: ${to} requires a destination tag (its account has lsfRequireDestTag); send destination_tag`, {
    type: 'destination_tag_required', title: 'Destination Tag Required', extras: { field: 'destination_tag' },
  });

export const belowBaseReserve = (to: string, amount: bigint, reserve: bigint): Problem => new Problem(422,
  `Not signed: ${to} has no account yet, and a new account must receive at least the base reserve (${xrp(reserve)} XRP); this sends ${xrp(amount)}`, {
    type: 'below_base_reserve', title: 'Below Base Reserve', extras: { value_drops: amount.toString(), base_reserve_drops: reserve.toString() },
  });

export const feeAboveCap = (fee: bigint, cap: bigint): Problem => new Problem(422,
  `Not signed: the transaction's Fee (${fee} drops) is above the service's cap of ${cap} drops`, { type: 'fee_above_cap', title: 'Fee Above Cap' });
