// What an SPL transfer needs to know about its accounts, read in one getMultipleAccounts: the mint
// (its decimals, which must match the request's token_decimals, since transferChecked asserts
// them), the sender's associated token account (its balance) and the recipient's (whether it
// must be created). Only the classic Token program is handled; a Token-2022 mint is refused
// (its extensions — transfer fees, hooks — change what a transfer needs).
import { PublicKey } from '@solana/web3.js';
import { AccountLayout, AccountState, ACCOUNT_SIZE, getAssociatedTokenAddressSync, MINT_SIZE, MintLayout, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { invalidField, Problem } from '../../../errors.ts';
import type { RpcAccount, SolanaRpc } from './solana-rpc.ts';

export type TokenAccounts = {
  mint: PublicKey;
  decimals: number;
  senderAta: PublicKey;
  /** 0 also when the sender has no token account for this mint. */
  senderBalance: bigint;
  recipientAta: PublicKey;
  recipientAtaExists: boolean;
};

const frozen = (whose: string, ata: PublicKey) => new Problem(422, `Not signed: the ${whose} token account ${ata.toBase58()} is frozen by the mint's freeze authority`, {
  type: 'token_account_frozen', title: 'Token Account Frozen',
});

function tokenAccount(acc: RpcAccount, field: string) {
  if (acc.owner !== TOKEN_PROGRAM_ID.toBase58() || acc.data.length !== ACCOUNT_SIZE) {
    throw invalidField(field, 'its associated token account address holds something other than a token account');
  }
  return AccountLayout.decode(acc.data);
}

/**
 * Reads the mint and both associated token accounts. `to` must be a wallet (an on-curve key): an
 * off-curve `to` is most often a token account pasted as the recipient, and tokens sent to its
 * "associated token account" would be lost.
 */
export async function readTokenAccounts(rpc: SolanaRpc, from: PublicKey, to: PublicKey, mintAddress: string, decimals: number | undefined): Promise<TokenAccounts> {
  const mint = new PublicKey(mintAddress);
  if (!PublicKey.isOnCurve(to.toBytes())) {
    throw invalidField('to', 'for a token transfer must be the recipient wallet address (an Ed25519 key), not a token account or program address');
  }
  const senderAta = getAssociatedTokenAddressSync(mint, from, true);
  const recipientAta = getAssociatedTokenAddressSync(mint, to, false);
  const [mintAcc, senderAcc, recipientAcc] = await rpc.accounts([mint.toBase58(), senderAta.toBase58(), recipientAta.toBase58()]);
  if (!mintAcc) throw invalidField('token_mint', 'no such mint on this network');
  if (mintAcc.owner !== TOKEN_PROGRAM_ID.toBase58()) {
    throw invalidField('token_mint', 'is not a mint of the SPL Token program (Token-2022 mints are not supported)');
  }
  if (mintAcc.data.length !== MINT_SIZE) throw invalidField('token_mint', 'is not a mint account');
  const mintState = MintLayout.decode(mintAcc.data);
  if (!mintState.isInitialized) throw invalidField('token_mint', 'is not an initialized mint');
  if (decimals !== undefined && decimals !== mintState.decimals) {
    throw invalidField('token_decimals', `is ${decimals}, but the mint has ${mintState.decimals} decimals`);
  }
  let senderBalance = 0n;
  if (senderAcc) {
    const s = tokenAccount(senderAcc, 'token_mint');
    if (s.state === AccountState.Frozen) throw frozen('sender', senderAta);
    senderBalance = s.amount;
  }
  if (recipientAcc && tokenAccount(recipientAcc, 'to').state === AccountState.Frozen) throw frozen('recipient', recipientAta);
  return { mint, decimals: mintState.decimals, senderAta, senderBalance, recipientAta, recipientAtaExists: recipientAcc !== null };
}
