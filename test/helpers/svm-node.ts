// A real Solana runtime for tests: LiteSVM (the SVM, the System program and the SPL Token and
// Associated Token Account programs, in this process) behind an HTTP JSON-RPC server on
// 127.0.0.1 that answers the calls the Solana family makes with the real RPC's shapes
// (getLatestBlockhash, getBalance, getMultipleAccounts/getAccountInfo, getFeeForMessage,
// getMinimumBalanceForRentExemption, sendTransaction with preflight, getSignatureStatuses,
// getBlockHeight …), plus requestAirdrop and svm_* controls for hand-driven walk-throughs.
// Blocks: every landed transaction is one new block (slot = block height). A transaction is
// `confirmed` in its block and `finalized` FINALITY_DEPTH blocks later; getBlockHeight at
// 'finalized' lags by as much. A blockhash is valid for 150 blocks after it was issued, as on
// the real chain; expireBlockhash() moves past it (and past finality). No websocket: the family
// confirms by polling signature statuses.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PublicKey, VersionedMessage, VersionedTransaction } from '@solana/web3.js';
import { ACCOUNT_SIZE, AccountLayout, AccountState, getAssociatedTokenAddressSync, MINT_SIZE, MintLayout, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { base58Encode } from '../../domain/intents/families/solana/base58.ts';
import { errorJson, feeOf, NOT_LANDED, preflightFailure } from './svm-rpc-format.ts';
import { onRequestBody } from './request-body.ts';

export const MAX_BLOCKHASH_AGE = 150n;
export const FINALITY_DEPTH = 32n;
const MAX_BODY = 5 * 1024 * 1024;

export type SvmNode = {
  /** http://127.0.0.1:<port>: the JSON-RPC endpoint. */
  url: string;
  svm: LiteSVM;
  airdrop(address: string, lamports: bigint): void;
  balance(address: string): bigint;
  /** A new SPL mint (classic Token program) with `decimals`; its authority is irrelevant here (tokens are minted by mintTo). */
  createMint(decimals: number): string;
  /** Adds `amount` base units to `owner`'s associated token account (created if missing). */
  mintTo(mint: string, owner: string, amount: bigint): string;
  /** The base units in `owner`'s associated token account for `mint` (0 when it has none). */
  tokenBalance(mint: string, owner: string): bigint;
  tokenAccountExists(mint: string, owner: string): boolean;
  /** Moves the chain past every blockhash issued so far (and past finality of every landed block). */
  expireBlockhash(): void;
  /** The next sendTransaction answers its signature but the transaction never reaches the chain (a leader dropped it). */
  loseNextSend(): void;
  /** Produces `n` empty blocks. */
  advanceBlocks(n: number): void;
  blockHeight(): bigint;
  stop(): Promise<void>;
};

type Landed = { slot: bigint; err: unknown };
type RpcRequest = { id?: unknown; method?: unknown; params?: unknown };
type RpcError = { code: number; message: string; data?: unknown };
class RpcFailure extends Error {
  readonly rpc: RpcError;
  constructor(rpc: RpcError) { super(rpc.message); this.rpc = rpc; }
}
const invalidParams = (message: string) => new RpcFailure({ code: -32602, message });

/** JSON with bigints as plain JSON numbers (lamports, u64 fields), as the real node writes them. */
const stringify = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? (JSON as unknown as { rawJSON(s: string): unknown }).rawJSON(x.toString()) : x));

function key(text: unknown): PublicKey {
  try {
    return new PublicKey(text as string);
  } catch {
    throw invalidParams('Invalid param: Invalid');
  }
}

export async function startSvmNode(opts: { port?: number } = {}): Promise<SvmNode> {
  const svm = new LiteSVM();
  let height = 0n;
  const blockhashes = new Map<string, bigint>(); // blockhash → last valid block height
  const issue = () => { blockhashes.set(svm.latestBlockhash(), height + MAX_BLOCKHASH_AGE); };
  issue();
  const landed = new Map<string, Landed>();
  let loseNext = false;

  const advance = (n: bigint) => {
    height += n;
    svm.warpToSlot(height);
    // The chain's blockhash moves on; LiteSVM keeps one until told, so renew it once it is too old to use.
    if (height > blockhashes.get(svm.latestBlockhash())!) {
      svm.expireBlockhash();
      issue();
    }
  };
  const context = () => ({ slot: height, apiVersion: '2.2.0' });
  const finalizedHeight = () => (height > FINALITY_DEPTH ? height - FINALITY_DEPTH : 0n);
  const accountJson = (address: PublicKey) => {
    const a = svm.getAccount(address);
    if (!a || (a.lamports === 0 && a.data.length === 0)) return null;
    return {
      lamports: BigInt(a.lamports), owner: a.owner.toBase58(), data: [Buffer.from(a.data).toString('base64'), 'base64'],
      executable: a.executable, rentEpoch: BigInt(a.rentEpoch ?? 0), space: a.data.length,
    };
  };

  function decodeTransaction(params: unknown[]): VersionedTransaction {
    const [encoded, config] = params as [unknown, { encoding?: unknown } | undefined];
    if (typeof encoded !== 'string') throw invalidParams('invalid transaction: expected a string');
    const encoding = config?.encoding ?? 'base58';
    if (encoding !== 'base64') throw invalidParams('this local node accepts base64 only');
    try {
      return VersionedTransaction.deserialize(Buffer.from(encoded, 'base64'));
    } catch {
      throw invalidParams('failed to deserialize solana_transaction::versioned::VersionedTransaction');
    }
  }

  function sendTransaction(params: unknown[]): string {
    const tx = decodeTransaction(params);
    const skipPreflight = (params[1] as { skipPreflight?: unknown } | undefined)?.skipPreflight === true;
    const signature = base58Encode(tx.signatures[0] ?? new Uint8Array(64));
    const lastValid = blockhashes.get(tx.message.recentBlockhash);
    if (lastValid === undefined || height > lastValid) {
      if (skipPreflight) return signature; // the leader drops it
      throw new RpcFailure(preflightFailure('BlockhashNotFound'));
    }
    if (landed.has(signature)) {
      if (skipPreflight) return signature;
      throw new RpcFailure(preflightFailure('AlreadyProcessed'));
    }
    if (!skipPreflight) {
      const sim = svm.simulateTransaction(tx);
      if (sim instanceof FailedTransactionMetadata) {
        const err = errorJson(sim.err());
        if (err === 'SignatureFailure') throw new RpcFailure({ code: -32003, message: 'Transaction signature verification failure' });
        throw new RpcFailure(preflightFailure(err, sim.meta().logs(), sim.meta().computeUnitsConsumed()));
      }
    }
    if (loseNext) {
      loseNext = false;
      return signature;
    }
    const result = svm.sendTransaction(tx);
    const err = result instanceof FailedTransactionMetadata ? errorJson(result.err()) : null;
    if (typeof err === 'string' && NOT_LANDED.has(err)) return signature;
    advance(1n);
    landed.set(signature, { slot: height, err });
    return signature;
  }

  function signatureStatuses(params: unknown[]) {
    const [sigs] = params as [unknown];
    if (!Array.isArray(sigs) || sigs.length > 256) throw invalidParams('Invalid param: expected an array of at most 256 signatures');
    return {
      context: context(),
      value: sigs.map((s) => {
        const l = landed.get(String(s));
        if (!l) return null;
        const depth = height - l.slot;
        const finalized = depth >= FINALITY_DEPTH;
        return {
          slot: l.slot, confirmations: finalized ? null : Number(depth), err: l.err,
          status: l.err === null ? { Ok: null } : { Err: l.err }, confirmationStatus: finalized ? 'finalized' : 'confirmed',
        };
      }),
    };
  }

  const controls = {
    /**
     * Credits `lamports` directly (LiteSVM's own airdrop is a transfer from a faucet with the
     * current blockhash: the same airdrop twice in a row would be refused as already processed).
     * Recorded as a landed transaction in a block of its own, so requestAirdrop's signature confirms.
     */
    airdrop(address: string, lamports: bigint) {
      const at = key(address);
      const a = svm.getAccount(at);
      const total = BigInt(a?.lamports ?? 0) + lamports;
      if (total > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidParams('airdrop: the balance would exceed what this node stores exactly');
      svm.setAccount(at, a ? { ...a, lamports: Number(total) } : { lamports: Number(total), data: new Uint8Array(0), owner: PublicKey.default, executable: false });
      const signature = base58Encode(crypto.getRandomValues(new Uint8Array(64)));
      advance(1n);
      landed.set(signature, { slot: height, err: null });
      return signature;
    },
    createMint(decimals: number) {
      const mint = new PublicKey(Buffer.from(crypto.getRandomValues(new Uint8Array(32))));
      const data = Buffer.alloc(MINT_SIZE);
      MintLayout.encode({
        mintAuthorityOption: 1, mintAuthority: mint, supply: 0n, decimals, isInitialized: true, freezeAuthorityOption: 0, freezeAuthority: PublicKey.default,
      }, data);
      svm.setAccount(mint, { lamports: Number(svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE))), data, owner: TOKEN_PROGRAM_ID, executable: false });
      return mint.toBase58();
    },
    mintTo(mintAddress: string, owner: string, amount: bigint) {
      const mint = key(mintAddress);
      const mintAcc = svm.getAccount(mint);
      if (!mintAcc) throw new Error('no such mint');
      const ata = getAssociatedTokenAddressSync(mint, key(owner), true);
      const existing = svm.getAccount(ata);
      const before = existing ? AccountLayout.decode(existing.data).amount : 0n;
      const data = Buffer.alloc(ACCOUNT_SIZE);
      AccountLayout.encode({
        mint, owner: key(owner), amount: before + amount, delegateOption: 0, delegate: PublicKey.default, state: AccountState.Initialized,
        isNativeOption: 0, isNative: 0n, delegatedAmount: 0n, closeAuthorityOption: 0, closeAuthority: PublicKey.default,
      }, data);
      svm.setAccount(ata, { lamports: Number(svm.minimumBalanceForRentExemption(BigInt(ACCOUNT_SIZE))), data, owner: TOKEN_PROGRAM_ID, executable: false });
      const m = MintLayout.decode(mintAcc.data);
      const mintData = Buffer.alloc(MINT_SIZE);
      MintLayout.encode({ ...m, supply: m.supply + amount }, mintData);
      svm.setAccount(mint, { ...mintAcc, data: mintData });
      return ata.toBase58();
    },
    expireBlockhash() {
      advance(MAX_BLOCKHASH_AGE + FINALITY_DEPTH + 1n);
      svm.expireBlockhash();
      issue();
    },
  };

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.2.0-litesvm', 'feature-set': 0 }),
    getGenesisHash: () => '11111111111111111111111111111111',
    getSlot: () => height,
    getBlockHeight: (p) => ((p[0] as { commitment?: unknown } | undefined)?.commitment === 'finalized' ? finalizedHeight() : height),
    getLatestBlockhash: () => ({ context: context(), value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: blockhashes.get(svm.latestBlockhash())! } }),
    isBlockhashValid: (p) => { const v = blockhashes.get(String(p[0])); return { context: context(), value: v !== undefined && height <= v }; },
    getBalance: (p) => ({ context: context(), value: svm.getBalance(key(p[0])) ?? 0n }),
    getAccountInfo: (p) => ({ context: context(), value: accountJson(key(p[0])) }),
    getMultipleAccounts: (p) => {
      if (!Array.isArray(p[0]) || p[0].length > 100) throw invalidParams('Invalid param: expected an array of at most 100 addresses');
      return { context: context(), value: p[0].map((a) => accountJson(key(a))) };
    },
    getMinimumBalanceForRentExemption: (p) => svm.minimumBalanceForRentExemption(BigInt(Number(p[0] ?? 0))),
    getFeeForMessage: (p) => {
      let message: VersionedMessage;
      try { message = VersionedMessage.deserialize(Buffer.from(String(p[0]), 'base64')); } catch { throw invalidParams('invalid message'); }
      const v = blockhashes.get(message.recentBlockhash);
      return { context: context(), value: v !== undefined && height <= v ? feeOf(message) : null };
    },
    getTokenAccountBalance: (p) => {
      const a = svm.getAccount(key(p[0]));
      if (!a || !a.owner.equals(TOKEN_PROGRAM_ID) || a.data.length !== ACCOUNT_SIZE) throw invalidParams('Invalid param: could not find account');
      const t = AccountLayout.decode(a.data);
      const decimals = MintLayout.decode(svm.getAccount(t.mint)!.data).decimals;
      const s = t.amount.toString().padStart(decimals + 1, '0');
      const ui = decimals ? `${s.slice(0, -decimals)}.${s.slice(-decimals)}`.replace(/\.?0+$/, '') : s;
      return { context: context(), value: { amount: t.amount.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui } };
    },
    sendTransaction: sendTransaction,
    getSignatureStatuses: signatureStatuses,
    requestAirdrop: (p) => controls.airdrop(String(p[0]), BigInt(Number(p[1]))),
    svm_createMint: (p) => controls.createMint(Number(p[0] ?? 6)),
    svm_mintTo: (p) => controls.mintTo(String(p[0]), String(p[1]), BigInt(String(p[2]))),
    svm_expireBlockhash: () => { controls.expireBlockhash(); return null; },
    svm_loseNextSend: () => { loseNext = true; return null; },
    svm_advanceBlocks: (p) => { advance(BigInt(Number(p[0] ?? 1))); return height; },
  };

  const handle = (req: RpcRequest) => {
    const id = req?.id ?? null;
    if (!req || typeof req !== 'object' || typeof req.method !== 'string') return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
    const method = methods[req.method];
    if (!method) return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
    try {
      return { jsonrpc: '2.0', id, result: method(Array.isArray(req.params) ? req.params : []) };
    } catch (e) {
      if (e instanceof RpcFailure) return { jsonrpc: '2.0', id, error: e.rpc };
      return { jsonrpc: '2.0', id, error: { code: -32603, message: `Internal error: ${(e as Error).message}` } };
    }
  };

  const server = http.createServer((req, res) => {
    const reply = (status: number, payload: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }).end(stringify(payload)); };
    if (req.method !== 'POST') return reply(405, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'POST only' } });
    onRequestBody(req, MAX_BODY, (body) => {
      let parsed: unknown;
      try { parsed = JSON.parse(body.toString('utf8')); } catch {
        return reply(200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      reply(200, Array.isArray(parsed) ? parsed.map((r) => handle(r as RpcRequest)) : handle(parsed as RpcRequest));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    svm,
    airdrop: (address, lamports) => { controls.airdrop(address, lamports); },
    balance: (address) => svm.getBalance(key(address)) ?? 0n,
    createMint: controls.createMint,
    mintTo: controls.mintTo,
    tokenBalance(mint, owner) {
      const a = svm.getAccount(getAssociatedTokenAddressSync(key(mint), key(owner), true));
      return a ? AccountLayout.decode(a.data).amount : 0n;
    },
    tokenAccountExists: (mint, owner) => svm.getAccount(getAssociatedTokenAddressSync(key(mint), key(owner), true)) !== null,
    expireBlockhash: controls.expireBlockhash,
    loseNextSend: () => { loseNext = true; },
    advanceBlocks: (n) => { advance(BigInt(n)); },
    blockHeight: () => height,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
