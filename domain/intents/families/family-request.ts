// A transfer on a non-EVM chain as an agent asks for it (POST /v1/agents/{id}/transactions and
// …/transactions/sign with a Bitcoin, Solana or XRP `chain`; reference SubmitTransactionRequest's
// non-EVM fields). `value` stays the decimal text sent: its unit depends on the family (BTC, SOL)
// or the token (token_mint with token_decimals, default 6 as the reference has it).
import { createHash } from 'node:crypto';

export type FamilyTransactionRequest = {
  chain: string | number;
  to: string;
  value: string;
  tokenMint?: string;
  tokenDecimals?: number;
  createRecipientTokenAccount?: boolean;
  feeRateSatPerVbyte?: number;
  computeUnitPrice?: bigint;
  /** Tron TRC-20: fee_limit_sun. */
  feeLimitSun?: bigint;
  /** Cardano: seconds until the transaction expires unlanded. */
  ttl?: number;
  signingKeyPath?: string;
  /** XRP: the Payment's destination tag and memo text, or a whole transaction the agent provides. */
  destinationTag?: number;
  memo?: string;
  xrplTxJson?: Record<string, unknown>;
};

/** The reference's default decimals of a token named by token_mint. */
export const DEFAULT_TOKEN_DECIMALS = 6;

/** SHA-256 of what is asked (and whether to broadcast): the same Idempotency-Key for another request is refused. */
export function familyRequestDigest(r: FamilyTransactionRequest, network: string, mode: 'submit' | 'sign_only'): string {
  const canonical = [mode, network, r.to, r.value, r.tokenMint ?? '', r.tokenDecimals ?? '', r.createRecipientTokenAccount ?? '',
    r.feeRateSatPerVbyte ?? '', r.computeUnitPrice ?? '', r.feeLimitSun ?? '', r.destinationTag ?? '', r.memo ?? '', r.xrplTxJson ? JSON.stringify(r.xrplTxJson) : '', r.ttl ?? ''].map(String).join('|');
  return createHash('sha256').update(canonical).digest('hex');
}
