// Builds an agent's transfer as an unsigned legacy transaction, from the chain's current facts:
// a SOL transfer (SystemProgram.transfer) or an SPL transfer (transferChecked between associated
// token accounts, creating the recipient's with the idempotent ATA instruction only when the
// intent allows it), an optional priority fee (setComputeUnitPrice), the sender as fee payer and
// a recent blockhash. Every transfer carries a fresh random reference key (read-only, on the
// transfer instruction, as Solana Pay does): without it two identical transfers signed against the
// same blockhash would be the same bytes, the second "already processed" and only one paid.
// The reference also finds the transaction by address (getSignaturesForAddress). The node prices the compiled message (getFeeForMessage); funds are checked
// against amount + fee (+ rent of a new token account) before anything is signed.
import { randomBytes } from 'node:crypto';
import { ComputeBudgetProgram, PublicKey, SystemProgram, TransactionMessage, type Message, type TransactionInstruction } from '@solana/web3.js';
import { ACCOUNT_SIZE, createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction } from '@solana/spl-token';
import { invalidField, Problem } from '../../../errors.ts';
import type { FamilyNetwork, FamilySender, TransferIntent } from '../chain-family.ts';
import { isSolanaAddress, solanaAddressBytes } from './solana-address.ts';
import { belowRentExemption, dustLeft, insufficientSol, insufficientTokens } from './solana-problems.ts';
import type { SolanaRpc } from './solana-rpc.ts';
import { SolanaChainFacts } from './solana-chain-facts.ts';
import { readTokenAccounts } from './solana-token-accounts.ts';

const U64_MAX = (1n << 64n) - 1n;

export type UnsignedTransfer = {
  /** The compiled legacy message (fee payer first), signed as its serialized bytes. */
  message: Message;
  fee: bigint;
  blockhash: string;
  lastValidBlockHeight: bigint;
  details: Record<string, string | number | boolean | null>;
};

function checkIntent(intent: TransferIntent): void {
  if (intent.amount <= 0n || intent.amount > U64_MAX) throw invalidField('value', 'must be above zero and fit in 64 bits of base units');
  if (intent.computeUnitPrice !== undefined && (intent.computeUnitPrice < 0n || intent.computeUnitPrice > U64_MAX)) {
    throw invalidField('compute_unit_price', 'must be a whole number of micro-lamports per compute unit that fits in 64 bits');
  }
  if (intent.tokenMint === undefined && (intent.tokenDecimals !== undefined || intent.createRecipientTokenAccount)) {
    throw invalidField('token_mint', 'is required with token_decimals or create_recipient_token_account');
  }
  if (intent.tokenMint !== undefined && !isSolanaAddress(intent.tokenMint)) throw invalidField('token_mint', 'must be a Solana address (base58 of 32 bytes)');
}

/**
 * The transfer `intent` asks for, unsigned, with its fee, or a 4xx problem for what can never go.
 * `facts` keeps the rent minimum, and for a sign-only transfer (`signOnly`) the blockhash and the
 * fee, briefly (solana-chain-facts.ts): then the node is asked once, for the two balances.
 */
export async function buildTransfer(rpc: SolanaRpc, net: FamilyNetwork, sender: FamilySender, intent: TransferIntent,
  facts: SolanaChainFacts = new SolanaChainFacts(), signOnly = false): Promise<UnsignedTransfer> {
  checkIntent(intent);
  const from = new PublicKey(sender.publicKey);
  const to = new PublicKey(solanaAddressBytes(intent.to, 'to'));
  const priority = intent.computeUnitPrice ? [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: intent.computeUnitPrice })] : [];

  // Everything the chain decides, asked in parallel.
  const [{ blockhash, lastValidBlockHeight }, balances, rentZero, token, ataRent] = await Promise.all([
    facts.latestBlockhash(rpc, net, signOnly),
    rpc.accounts([sender.address, intent.to]),
    facts.rentExemptMinimum(rpc, net, 0),
    intent.tokenMint === undefined ? null : readTokenAccounts(rpc, from, to, intent.tokenMint, intent.tokenDecimals),
    intent.tokenMint === undefined ? 0n : facts.rentExemptMinimum(rpc, net, ACCOUNT_SIZE),
  ]);
  const balance = balances[0]?.lamports ?? 0n;

  let instructions: TransactionInstruction[];
  let sol: bigint; // lamports leaving the sender besides the fee
  let details: UnsignedTransfer['details'];
  if (token === null) {
    if ((balances[1]?.lamports ?? 0n) === 0n && intent.amount < rentZero) throw belowRentExemption(intent.to, intent.amount, rentZero);
    instructions = [SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: intent.amount })];
    sol = intent.amount;
    details = {};
  } else {
    if (token.senderBalance < intent.amount) throw insufficientTokens(net.name, sender.address, token.mint.toBase58(), token.senderBalance, intent.amount, token.decimals);
    if (!token.recipientAtaExists && !intent.createRecipientTokenAccount) {
      throw new Problem(422, `Not signed: ${intent.to} has no token account for ${token.mint.toBase58()} yet; set create_recipient_token_account to create it (the sender pays its rent)`, {
        type: 'recipient_token_account_missing', title: 'Recipient Token Account Missing',
        extras: { recipient_token_account: token.recipientAta.toBase58(), rent_lamports: ataRent.toString() },
      });
    }
    const create = token.recipientAtaExists ? [] : [createAssociatedTokenAccountIdempotentInstruction(from, token.recipientAta, to, token.mint)];
    instructions = [...create, createTransferCheckedInstruction(token.senderAta, token.mint, token.recipientAta, from, intent.amount, token.decimals)];
    sol = create.length ? ataRent : 0n;
    details = {
      tokenMint: token.mint.toBase58(), tokenDecimals: token.decimals,
      recipientTokenAccount: token.recipientAta.toBase58(), createsTokenAccount: create.length > 0,
      rentLamports: sol.toString(),
    };
  }

  const reference = new PublicKey(randomBytes(32));
  instructions[instructions.length - 1]!.keys.push({ pubkey: reference, isSigner: false, isWritable: false });
  // Compiled once (TransactionMessage: web3.js's Transaction would compile again on every
  // serialize, sorting its accounts by their base58 text).
  const message = new TransactionMessage({ payerKey: from, recentBlockhash: blockhash, instructions: [...priority, ...instructions] }).compileToLegacyMessage();
  // The fee depends on the message's shape (signatures, instructions, compute-unit price), not its blockhash.
  const shape = `${priority.length}+${instructions.length}:${intent.computeUnitPrice ?? 0n}`;
  const fee = await facts.feeForMessage(rpc, net, shape, () => Buffer.from(message.serialize()).toString('base64'), signOnly);
  const required = sol + fee;
  if (balance < required) {
    throw insufficientSol(net.name, sender.address, balance, required, token === null ? 'the value plus the fee' : sol > 0n ? "the fee plus the rent of the recipient's new token account" : 'the fee');
  }
  const left = balance - required;
  if (left > 0n && left < rentZero) throw dustLeft(net.name, sender.address, left, rentZero);
  return {
    message, fee, blockhash, lastValidBlockHeight,
    details: {
      ...details, reference: reference.toBase58(), blockhash, lastValidBlockHeight: Number(lastValidBlockHeight),
      ...(intent.computeUnitPrice ? { computeUnitPrice: intent.computeUnitPrice.toString() } : {}),
    },
  };
}
