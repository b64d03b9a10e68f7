// The 4xx problems a Tron transfer can meet before anything is signed, shaped as the other
// families' (422 insufficient_funds with the amounts in base units as strings).
import { Problem } from '../../../errors.ts';
import { formatUnits } from '../units.ts';
import { TRX_DECIMALS } from './tron-address.ts';

export function insufficientTrx(net: string, from: string, balance: bigint, required: bigint): Problem {
  return new Problem(422, `Not signed: ${from} holds ${formatUnits(balance, TRX_DECIMALS)} TRX on ${net}, less than the amount (${formatUnits(required, TRX_DECIMALS)} TRX)`, {
    type: 'insufficient_funds', title: 'Insufficient Funds',
    extras: { balance_sun: balance.toString(), required_sun: required.toString() },
  });
}

export function insufficientTrc20(net: string, from: string, contract: string, balance: bigint, required: bigint, decimals: number): Problem {
  return new Problem(422, `Not signed: ${from} holds ${formatUnits(balance, decimals)} of TRC-20 token ${contract} on ${net}, less than the amount (${formatUnits(required, decimals)})`, {
    type: 'insufficient_funds', title: 'Insufficient Funds',
    extras: { token_mint: contract, token_balance: balance.toString(), required_token_amount: required.toString() },
  });
}
