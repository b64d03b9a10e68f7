// The 4xx problems a Solana transfer can meet before anything is signed: the sender lacks SOL (or
// tokens), or the transfer would leave an account below rent exemption, which the runtime refuses
// (an account holds either nothing or at least its rent-exempt minimum). Shaped as the EVM
// family's checkFunds (domain/intents/transactions/transaction-commands.ts): 422,
// type 'insufficient_funds', amounts in the smallest unit as strings.
import { Problem } from '../../../errors.ts';
import { formatSol, formatUnits } from './solana-address.ts';

export function insufficientSol(net: string, from: string, balance: bigint, required: bigint, what: string): Problem {
  return new Problem(422, `Not signed: ${from} holds ${formatSol(balance)} SOL on ${net}, less than ${what} (${formatSol(required)} SOL)`, {
    type: 'insufficient_funds', title: 'Insufficient Funds',
    extras: { balance_lamports: balance.toString(), required_lamports: required.toString() },
  });
}

export function insufficientTokens(net: string, from: string, mint: string, balance: bigint, required: bigint, decimals: number): Problem {
  return new Problem(422, `Not signed: ${from} holds ${formatUnits(balance, decimals)} of token ${mint} on ${net}, less than the amount (${formatUnits(required, decimals)})`, {
    type: 'insufficient_funds', title: 'Insufficient Funds',
    extras: { token_mint: mint, token_balance: balance.toString(), required_token_amount: required.toString() },
  });
}

/** The sender would keep a balance above zero but below the rent-exempt minimum. */
export function dustLeft(net: string, from: string, left: bigint, minimum: bigint): Problem {
  return new Problem(422, `Not signed: after this transfer ${from} would hold ${formatSol(left)} SOL on ${net}, below the rent-exempt minimum of ${formatSol(minimum)} SOL; send less, or everything`, {
    type: 'insufficient_funds', title: 'Insufficient Funds',
    extras: { remaining_lamports: left.toString(), rent_exempt_minimum_lamports: minimum.toString() },
  });
}

/** A new (empty) recipient account must receive at least the rent-exempt minimum. */
export function belowRentExemption(to: string, amount: bigint, minimum: bigint): Problem {
  return new Problem(422, `Not signed: ${to} has no account yet, and a new account must receive at least ${formatSol(minimum)} SOL (rent exemption); this sends ${formatSol(amount)}`, {
    type: 'below_rent_exemption', title: 'Below Rent Exemption',
    extras: { value_lamports: amount.toString(), rent_exempt_minimum_lamports: minimum.toString() },
  });
}
