// The Solana family (domain/intents/families/solana/) against a real SVM (LiteSVM behind JSON-RPC,
// test/helpers/svm-node.ts): SOL and SPL transfers land with the balances they should, what can
// never go is refused before anything is signed, every signature verifies with @noble/curves for
// the agent's key (the KMS stands in as a local Ed25519 key behind PayloadSigner), a transaction
// the network never saw is proven expired once its blockhash is past (so the caller may re-sign),
// duplicates and refusals broadcast as they should, and unified sign checks the fee payer.
// Needs no Postgres or Temporal.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ed25519 } from '@noble/curves/ed25519';
import { Connection, Keypair, PublicKey, SystemProgram, Transaction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { ChainRpcError, ChainUnavailable } from '../../domain/chains/rpc-errors.ts';
import { Problem } from '../../domain/errors.ts';
import type { FamilyNetwork, FamilySender, PayloadSigner, SignedTransfer, TransferIntent } from '../../domain/intents/families/chain-family.ts';
import { base58Decode } from '../../domain/intents/families/solana/base58.ts';
import { SolanaFamily } from '../../domain/intents/families/solana/solana-family.ts';
import { SolanaRpc } from '../../domain/intents/families/solana/solana-rpc.ts';
import { SignatureMismatch, signMessage, signProvidedTransaction } from '../../domain/intents/families/solana/solana-signing.ts';
import { startSvmNode, type SvmNode } from '../helpers/svm-node.ts';

const SOL = 1_000_000_000n;
const family = new SolanaFamily({ timeoutMs: 5_000 });
let node: SvmNode;
let net: FamilyNetwork;

/** An agent: a local Ed25519 key standing in for the KMS, reachable only through PayloadSigner (which counts its calls). */
function agent() {
  const secret = ed25519.utils.randomPrivateKey();
  const publicKey = ed25519.getPublicKey(secret);
  const sender: FamilySender = { publicKey, address: family.addressOf(publicKey, net) };
  const calls: Uint8Array[] = [];
  const sign: PayloadSigner = async (payload) => { calls.push(payload); return ed25519.sign(payload, secret); };
  return { sender, sign, calls, keypair: Keypair.fromSecretKey(Buffer.concat([secret, publicKey])) };
}
const newAddress = () => Keypair.generate().publicKey.toBase58();
const NO_SPEND = { reservedOutpoints: new Set<string>() };

async function problemOf(work: Promise<unknown>): Promise<Problem> {
  try {
    await work;
  } catch (e) {
    if (e instanceof Problem) return e;
    throw e;
  }
  throw new Error('expected a problem');
}

/** Signs and broadcasts `intent`, then polls status until it leaves pending (a deadline, no fixed sleep). */
async function send(a: ReturnType<typeof agent>, intent: TransferIntent): Promise<SignedTransfer> {
  const signed = await family.signTransfer(net, a.sender, intent, NO_SPEND, a.sign);
  expect(await family.broadcast(net, signed.raw)).toEqual({ sent: true });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = await family.status(net, signed.txHash, signed.details);
    if (s.state === 'confirmed') return signed;
    if (s.state !== 'pending' || Date.now() > deadline) throw new Error(`transfer ended ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  node = await startSvmNode();
  net = { name: 'solana-localnet', chainId: 900_001, network: 'localnet', rpcUrl: node.url, confirmations: 1 };
});
afterAll(async () => { await node?.stop(); });

describe('SOL transfers', () => {
  it('lands with the amount at the recipient and amount + fee gone from the sender', async () => {
    const a = agent();
    node.airdrop(a.sender.address, 10n * SOL);
    const to = newAddress();
    const signed = await send(a, { to, amount: 2n * SOL + 1n });
    expect(signed.fee).toBe(5000n);
    expect(signed.spends).toEqual([]);
    expect(node.balance(to)).toBe(2n * SOL + 1n);
    expect(node.balance(a.sender.address)).toBe(10n * SOL - 2n * SOL - 1n - 5000n);
    expect(await family.balance(net, a.sender.address)).toBe(node.balance(a.sender.address));
    expect(signed.details).toEqual({ reference: expect.any(String), blockhash: expect.any(String), lastValidBlockHeight: expect.any(Number) });
    expect(a.calls).toHaveLength(1);
  });

  it('two identical transfers against the same blockhash are two transactions, both paid', async () => {
    const a = agent();
    node.airdrop(a.sender.address, 10n * SOL);
    const to = newAddress();
    const first = await send(a, { to, amount: SOL });
    const second = await send(a, { to, amount: SOL });
    expect(second.details.blockhash).toBe(first.details.blockhash);
    expect(second.txHash).not.toBe(first.txHash);
    expect(node.balance(to)).toBe(2n * SOL);
  });

  it('with a compute-unit price: the fee it records is the fee the chain took', async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    const signed = await send(a, { to: newAddress(), amount: SOL / 2n, computeUnitPrice: 1_000_000n });
    expect(signed.fee).toBeGreaterThan(5000n);
    expect(node.balance(a.sender.address)).toBe(SOL - SOL / 2n - signed.fee);
    expect(signed.details.computeUnitPrice).toBe('1000000');
  });

  it('its signature verifies with @noble/curves for the agent key, and its id is that signature', async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    const signed = await family.signTransfer(net, a.sender, { to: newAddress(), amount: SOL / 10n }, NO_SPEND, a.sign);
    const tx = VersionedTransaction.deserialize(Buffer.from(signed.raw, 'base64'));
    expect(tx.message.staticAccountKeys[0]!.toBase58()).toBe(a.sender.address);
    expect(tx.signatures).toHaveLength(1);
    expect(ed25519.verify(tx.signatures[0]!, tx.message.serialize(), a.sender.publicKey)).toBe(true);
    expect(base58Decode(signed.txHash)).toEqual(tx.signatures[0]);
    expect(a.calls[0]).toEqual(tx.message.serialize()); // the signer got exactly the message bytes
    const tampered = tx.message.serialize();
    tampered[tampered.length - 1] ^= 1;
    expect(ed25519.verify(tx.signatures[0]!, tampered, a.sender.publicKey)).toBe(false);
  });

  it('refuses before signing when the balance does not cover amount + fee', async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    const p = await problemOf(family.signTransfer(net, a.sender, { to: newAddress(), amount: SOL }, NO_SPEND, a.sign));
    expect(p.status).toBe(422);
    expect(p.type).toBe('insufficient_funds');
    expect(p.extras).toEqual({ balance_lamports: SOL.toString(), required_lamports: (SOL + 5000n).toString() });
    // Everything minus the fee goes (the account empties); a little less would leave dust below rent exemption.
    expect((await problemOf(family.signTransfer(net, a.sender, { to: newAddress(), amount: SOL - 5000n - 1n }, NO_SPEND, a.sign))).type).toBe('insufficient_funds');
    expect(a.calls).toHaveLength(0);
    await send(a, { to: newAddress(), amount: SOL - 5000n });
    expect(node.balance(a.sender.address)).toBe(0n);
  });

  it('refuses less than the rent-exempt minimum to an address with no account, and bad destinations', async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    expect((await problemOf(family.signTransfer(net, a.sender, { to: newAddress(), amount: 1000n }, NO_SPEND, a.sign))).type).toBe('below_rent_exemption');
    const bad = await problemOf(family.signTransfer(net, a.sender, { to: 'not-an-address', amount: 1000n }, NO_SPEND, a.sign));
    expect([bad.status, bad.extras]).toEqual([400, { errors: [{ field: 'to', message: expect.any(String) }] }]);
    expect((await problemOf(family.signTransfer(net, a.sender, { to: newAddress(), amount: 0n }, NO_SPEND, a.sign))).status).toBe(400);
    expect(a.calls).toHaveLength(0);
  });

  it('a KMS answering for another key produces nothing', async () => {
    const a = agent();
    const other = agent();
    node.airdrop(a.sender.address, SOL);
    await expect(family.signTransfer(net, a.sender, { to: newAddress(), amount: SOL / 10n }, NO_SPEND, other.sign)).rejects.toBeInstanceOf(SignatureMismatch);
  });
});

describe('SPL token transfers', () => {
  it("creates the recipient's token account when allowed and lands; the next transfer needs no creation", async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    const mint = node.createMint(6);
    node.mintTo(mint, a.sender.address, 5_000_000n);
    const to = newAddress();
    const first = await send(a, { to, amount: 1_250_000n, tokenMint: mint, tokenDecimals: 6, createRecipientTokenAccount: true });
    expect(node.tokenBalance(mint, to)).toBe(1_250_000n);
    expect(node.tokenBalance(mint, a.sender.address)).toBe(3_750_000n);
    const rent = BigInt(first.details.rentLamports as string);
    expect(rent).toBeGreaterThan(0n);
    expect(first.details).toMatchObject({ tokenMint: mint, tokenDecimals: 6, createsTokenAccount: true });
    expect(node.balance(a.sender.address)).toBe(SOL - first.fee - rent);

    const second = await send(a, { to, amount: 750_000n, tokenMint: mint, createRecipientTokenAccount: true });
    expect(second.details).toMatchObject({ createsTokenAccount: false, rentLamports: '0' });
    expect(node.tokenBalance(mint, to)).toBe(2_000_000n);
    expect(node.balance(a.sender.address)).toBe(SOL - first.fee - rent - second.fee);
  });

  it("refuses when the recipient has no token account and creating one was not allowed", async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    const mint = node.createMint(6);
    node.mintTo(mint, a.sender.address, 5_000_000n);
    const to = newAddress();
    const p = await problemOf(family.signTransfer(net, a.sender, { to, amount: 1n, tokenMint: mint, tokenDecimals: 6 }, NO_SPEND, a.sign));
    expect(p.status).toBe(422);
    expect(p.type).toBe('recipient_token_account_missing');
    expect(a.calls).toHaveLength(0);
    expect(node.tokenAccountExists(mint, to)).toBe(false);
  });

  it('refuses before signing: too few tokens, too little SOL for the new account, wrong decimals, a token account as recipient', async () => {
    const a = agent();
    node.airdrop(a.sender.address, 1_000_000n); // enough for fees, not for a token account's rent
    const mint = node.createMint(9);
    node.mintTo(mint, a.sender.address, 100n);
    const to = newAddress();
    const tokens = await problemOf(family.signTransfer(net, a.sender, { to, amount: 101n, tokenMint: mint, createRecipientTokenAccount: true }, NO_SPEND, a.sign));
    expect([tokens.status, tokens.type, tokens.extras.token_balance]).toEqual([422, 'insufficient_funds', '100']);
    const rent = await problemOf(family.signTransfer(net, a.sender, { to, amount: 100n, tokenMint: mint, createRecipientTokenAccount: true }, NO_SPEND, a.sign));
    expect([rent.status, rent.type]).toEqual([422, 'insufficient_funds']);
    expect(rent.detail).toMatch(/rent/);
    const decimals = await problemOf(family.signTransfer(net, a.sender, { to, amount: 1n, tokenMint: mint, tokenDecimals: 6 }, NO_SPEND, a.sign));
    expect(decimals.extras).toEqual({ errors: [{ field: 'token_decimals', message: 'is 6, but the mint has 9 decimals' }] });
    const ata = node.mintTo(mint, to, 1n);
    const offCurve = await problemOf(family.signTransfer(net, a.sender, { to: ata, amount: 1n, tokenMint: mint }, NO_SPEND, a.sign));
    expect([offCurve.status, (offCurve.extras.errors as { field: string }[])[0]!.field]).toEqual([400, 'to']);
    const noMint = await problemOf(family.signTransfer(net, a.sender, { to, amount: 1n, tokenMint: newAddress() }, NO_SPEND, a.sign));
    expect((noMint.extras.errors as { field: string }[])[0]!.field).toBe('token_mint');
    expect(a.calls).toHaveLength(0);
  });
});

describe('broadcast and status', () => {
  it('a lost transaction whose blockhash passed is expired; a landed one stays confirmed; a re-signed one lands', async () => {
    const a = agent();
    node.airdrop(a.sender.address, 3n * SOL);
    const to = newAddress();
    const landed = await send(a, { to, amount: SOL });

    node.loseNextSend();
    const lost = await family.signTransfer(net, a.sender, { to, amount: SOL }, NO_SPEND, a.sign);
    expect(await family.broadcast(net, lost.raw)).toEqual({ sent: true }); // the node took it; no leader ever will
    expect(await family.status(net, lost.txHash, lost.details)).toEqual({ state: 'pending' });
    node.advanceBlocks(100); // still within the blockhash's 150 blocks: not provably lost yet
    expect(await family.status(net, lost.txHash, lost.details)).toEqual({ state: 'pending' });

    node.expireBlockhash();
    expect(await family.status(net, lost.txHash, lost.details)).toEqual({ state: 'expired' });
    expect(await family.status(net, landed.txHash, landed.details)).toMatchObject({ state: 'confirmed', block: expect.any(BigInt) });
    // The old bytes can no longer go (not a permanent refusal: status decides, and says expired).
    expect(await family.broadcast(net, lost.raw)).toEqual({ sent: false, permanent: false, reason: expect.stringMatching(/blockhash not found/i) });
    expect(node.balance(to)).toBe(SOL);

    const again = await send(a, { to, amount: SOL }); // rebuilt: a new blockhash, a new signature
    expect(again.txHash).not.toBe(lost.txHash);
    expect(again.details.blockhash).not.toBe(lost.details.blockhash);
    expect(node.balance(to)).toBe(2n * SOL);
  });

  it('broadcasting the same bytes again is still sent, and they land once', async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    const to = newAddress();
    const signed = await send(a, { to, amount: SOL / 4n });
    expect(await family.broadcast(net, signed.raw)).toEqual({ sent: true });
    expect(await family.broadcast(net, signed.raw)).toEqual({ sent: true });
    expect(node.balance(to)).toBe(SOL / 4n);
  });

  it('a preflight refusal is permanent for those bytes', async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    const signed = await family.signTransfer(net, a.sender, { to: newAddress(), amount: SOL / 2n }, NO_SPEND, a.sign);
    await send(a, { to: newAddress(), amount: SOL / 2n + SOL / 4n }); // spends what the first needed
    const verdict = await family.broadcast(net, signed.raw);
    expect(verdict).toEqual({ sent: false, permanent: true, reason: expect.stringMatching(/simulation failed/i) });
  });

  it('a transaction that failed on chain reports failed with the error', async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    const rpc = new SolanaRpc(net);
    const { blockhash, lastValidBlockHeight } = await rpc.latestBlockhash();
    const tx = new Transaction({ feePayer: a.keypair.publicKey, blockhash, lastValidBlockHeight: Number(lastValidBlockHeight) })
      .add(SystemProgram.transfer({ fromPubkey: a.keypair.publicKey, toPubkey: new PublicKey(newAddress()), lamports: 5n * SOL }));
    tx.sign(a.keypair);
    // Without preflight (as other wallets send) the chain takes it, runs it, and it fails.
    const signature = await rpc.call<string>('sendTransaction', [tx.serialize().toString('base64'), { encoding: 'base64', skipPreflight: true }]);
    const status = await family.status(net, signature, { blockhash, lastValidBlockHeight: Number(lastValidBlockHeight) });
    expect(status).toEqual({ state: 'failed', reason: expect.stringContaining('InstructionError'), block: expect.any(BigInt) });
  });

  it("with more confirmations asked for, waits for 'finalized'", async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    const strict = { ...net, confirmations: 32 };
    const signed = await family.signTransfer(strict, a.sender, { to: newAddress(), amount: SOL / 2n }, NO_SPEND, a.sign);
    expect(await family.broadcast(strict, signed.raw)).toEqual({ sent: true });
    expect(await family.status(strict, signed.txHash, signed.details)).toEqual({ state: 'pending' });
    expect(await family.status(net, signed.txHash, signed.details)).toMatchObject({ state: 'confirmed', confirmations: 1 });
    node.advanceBlocks(32);
    expect(await family.status(strict, signed.txHash, signed.details)).toMatchObject({ state: 'confirmed', confirmations: 32 });
  });
});

describe('unified sign helpers', () => {
  it('signs a transaction the agent pays for, and the node accepts it', async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    const { blockhash } = await new SolanaRpc(net).latestBlockhash();
    const to = newAddress();
    const message = new TransactionMessage({
      payerKey: new PublicKey(a.sender.address), recentBlockhash: blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: new PublicKey(a.sender.address), toPubkey: new PublicKey(to), lamports: SOL / 10n })],
    }).compileToV0Message();
    const unsigned = Buffer.from(new VersionedTransaction(message).serialize()).toString('base64');
    const out = await signProvidedTransaction(unsigned, a.sender, a.sign);
    expect(out.fullySigned).toBe(true);
    const tx = VersionedTransaction.deserialize(Buffer.from(out.raw, 'base64'));
    expect(ed25519.verify(tx.signatures[0]!, tx.message.serialize(), a.sender.publicKey)).toBe(true);
    expect(base58Decode(out.signature)).toEqual(tx.signatures[0]);
    expect(await family.broadcast(net, out.raw)).toEqual({ sent: true });
    expect(node.balance(to)).toBe(SOL / 10n);

    // A legacy transaction works the same way.
    const legacy = new Transaction({ feePayer: new PublicKey(a.sender.address), recentBlockhash: blockhash })
      .add(SystemProgram.transfer({ fromPubkey: new PublicKey(a.sender.address), toPubkey: new PublicKey(to), lamports: SOL / 10n }));
    const legacyOut = await signProvidedTransaction(legacy.serialize({ requireAllSignatures: false }).toString('base64'), a.sender, a.sign);
    expect(Transaction.from(Buffer.from(legacyOut.raw, 'base64')).verifySignatures()).toBe(true);
  });

  it('refuses a transaction whose fee payer is not the agent, and bytes that are no transaction', async () => {
    const a = agent();
    const payer = Keypair.generate();
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: PublicKey.default.toBase58() })
      .add(SystemProgram.transfer({ fromPubkey: new PublicKey(a.sender.address), toPubkey: payer.publicKey, lamports: 1n }));
    const raw = tx.serialize({ requireAllSignatures: false }).toString('base64');
    const p = await problemOf(signProvidedTransaction(raw, a.sender, a.sign));
    expect(p.status).toBe(400);
    expect(p.detail).toContain(payer.publicKey.toBase58());
    for (const bad of ['not base64!', '', randomBytes(40).toString('base64'), randomBytes(2000).toString('base64')]) {
      expect((await problemOf(signProvidedTransaction(bad, a.sender, a.sign))).status).toBe(400);
    }
    expect(a.calls).toHaveLength(0);
  });

  it('keeps other signers\' slots and says the transaction still needs them', async () => {
    const a = agent();
    const cosigner = Keypair.generate();
    const tx = new Transaction({ feePayer: new PublicKey(a.sender.address), recentBlockhash: PublicKey.default.toBase58() })
      .add(SystemProgram.transfer({ fromPubkey: cosigner.publicKey, toPubkey: new PublicKey(a.sender.address), lamports: 1n }));
    const out = await signProvidedTransaction(tx.serialize({ requireAllSignatures: false }).toString('base64'), a.sender, a.sign);
    expect(out.fullySigned).toBe(false);
    const back = Transaction.from(Buffer.from(out.raw, 'base64'));
    back.partialSign(cosigner);
    expect(back.verifySignatures()).toBe(true);
  });

  it('signs a message, and refuses bytes that are a transaction message', async () => {
    const a = agent();
    const message = new TextEncoder().encode('Sign in to example.org: nonce 8f2c');
    const out = await signMessage(message, a.sender, a.sign);
    expect(ed25519.verify(out.signature, message, a.sender.publicKey)).toBe(true);
    const txMessage = new Transaction({ feePayer: new PublicKey(a.sender.address), recentBlockhash: PublicKey.default.toBase58() })
      .add(SystemProgram.transfer({ fromPubkey: new PublicKey(a.sender.address), toPubkey: PublicKey.default, lamports: SOL })).serializeMessage();
    expect((await problemOf(signMessage(txMessage, a.sender, a.sign))).status).toBe(400);
    expect(a.calls).toHaveLength(1);
  });
});

describe('node access', () => {
  it("the node's answers parse with web3.js's own Connection (the real RPC's shapes)", async () => {
    const a = agent();
    node.airdrop(a.sender.address, SOL);
    const mint = node.createMint(6);
    const ata = node.mintTo(mint, a.sender.address, 2_500_000n);
    const connection = new Connection(node.url, { commitment: 'confirmed', disableRetryOnRateLimit: true });
    const owner = new PublicKey(a.sender.address);
    expect(await connection.getBalance(owner)).toBe(Number(SOL));
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    expect(lastValidBlockHeight).toBeGreaterThan(await connection.getBlockHeight());
    expect(await connection.getMinimumBalanceForRentExemption(165)).toBeGreaterThan(0);
    expect((await connection.getTokenAccountBalance(new PublicKey(ata))).value).toMatchObject({ amount: '2500000', decimals: 6, uiAmountString: '2.5' });
    const [mintInfo, missing] = await connection.getMultipleAccountsInfo([new PublicKey(mint), Keypair.generate().publicKey]);
    expect([mintInfo?.owner.toBase58(), missing]).toEqual(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', null]);
    expect((await connection.getAccountInfo(new PublicKey(ata)))?.data.length).toBe(165);
    const tx = new Transaction({ feePayer: owner, blockhash, lastValidBlockHeight })
      .add(SystemProgram.transfer({ fromPubkey: owner, toPubkey: Keypair.generate().publicKey, lamports: SOL / 10n }));
    expect((await connection.getFeeForMessage(tx.compileMessage())).value).toBe(5000);
    tx.sign(a.keypair);
    const signature = await connection.sendRawTransaction(tx.serialize());
    const { value: [status] } = await connection.getSignatureStatuses([signature], { searchTransactionHistory: true });
    expect(status).toMatchObject({ err: null, confirmationStatus: 'confirmed', confirmations: 0 });
    await expect(connection.sendRawTransaction(tx.serialize())).rejects.toThrow(/already been processed/);
  });


  it('an unreachable node is ChainUnavailable (not a refusal), and no error names the URL', async () => {
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const secretUrl = `http://127.0.0.1:${port}/rpc/provider-key-0123456789abcdef`;
    const down = { ...net, rpcUrl: secretUrl };
    const a = agent();
    for (const work of [family.balance(down, a.sender.address), family.signTransfer(down, a.sender, { to: newAddress(), amount: SOL }, NO_SPEND, a.sign), family.status(down, 'x', {}), family.broadcast(down, 'AA==')]) {
      const e = await work.then(() => null, (err: unknown) => err);
      expect(e).toBeInstanceOf(ChainUnavailable);
      expect((e as Error).message).not.toContain('provider-key');
      expect((e as Error).message).not.toContain(String(port));
    }
    expect(a.calls).toHaveLength(0);
  });

  it('a node that answers slowly times out as ChainUnavailable; a node error is a ChainRpcError', async () => {
    const slow = http.createServer(() => { /* never answers */ });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', () => r()));
    try {
      const rpc = new SolanaRpc({ ...net, rpcUrl: `http://127.0.0.1:${(slow.address() as AddressInfo).port}` }, { timeoutMs: 200 });
      await expect(rpc.blockHeight()).rejects.toMatchObject({ name: 'ChainUnavailable', reason: 'timeout' });
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((r) => slow.close(() => r()));
    }
    await expect(new SolanaRpc(net).call('noSuchMethod', [])).rejects.toBeInstanceOf(ChainRpcError);
  });
});
