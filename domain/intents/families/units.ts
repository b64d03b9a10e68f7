// Decimal amounts in a family's major unit (BTC, SOL, a token) to and from its smallest unit,
// exactly, as bigint: one definition for every family (written with the Solana family, which
// also needs token decimals).
export { parseUnits, formatUnits } from './solana/solana-address.ts';
