// A local fake Tron full node for tests and walk-throughs: java-tron's HTTP API on 127.0.0.1 for
// the calls the Tron family makes (/wallet/getnowblock, getaccount, triggersmartcontract,
// triggerconstantcontract, broadcasttransaction, gettransactioninfobyid) with the node's request
// and answer shapes, over a small in-memory ledger: TRX balances and the balances of fake TRC-20
// contracts. On every broadcast it reads the transaction as the real node does — raw_data (JSON)
// encoded with tronweb's protobuf, which must be raw_data_hex; txID = sha256 of it — checks the
// reference block (TAPOS_ERROR), expiration (TRANSACTION_EXPIRATION_ERROR), duplicates
// (DUP_TRANSACTION_ERROR), that a signature recovers (tronweb's ecRecover) to the owner address
// (SIGERROR), and the contract against the ledger (CONTRACT_VALIDATE_ERROR: balance), then applies
// it. Blocks: produced every `blockIntervalMs` (or by hand: produceBlocks); a transaction taken is
// in the next block, with its transaction info. A TRC-20 call burns TRC20_FEE_SUN of TRX (REVERT
// when the sender lacks the tokens: in a block, failed, fee burned). Controls (also over HTTP, POST
// /control/*, for walk-throughs): fund, createToken, mint, produceBlocks, advanceTime,
// dropNextBroadcast (answered `result: true` but lost), tamperNextTrigger.
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { utils } from 'tronweb';
import { decodeRawData, type DecodedContract } from '../../domain/intents/families/tron/tron-transaction.ts';

export const TRC20_FEE_SUN = 13_000_000n;
const MAX_EXPIRATION_MS = 24 * 3600_000;
const TYPE_URL = 'type.googleapis.com/protocol.';

type Block = { number: bigint; blockID: string; timestamp: number; txIds: string[] };
type Info = { id: string; fee: bigint; blockNumber: bigint; blockTimeStamp: number; failed: string | null; contract: string | null };
type Pending = { txId: string; fee: bigint; failed: string | null; contract: string | null };

export type TronNode = {
  /** http://127.0.0.1:<port>: the node's HTTP API (what a chains row's rpc_url names). */
  url: string;
  /** `${url}/control`: the controls over HTTP. */
  controlUrl: string;
  fund(address: string, sun: bigint): void;
  balance(address: string): bigint;
  /** A new TRC-20 contract (T… address). */
  createToken(): string;
  mint(contract: string, address: string, amount: bigint): void;
  tokenBalance(contract: string, address: string): bigint;
  produceBlocks(n: number): void;
  /** Moves the chain's clock `ms` ahead and produces a block at that time. */
  advanceTime(ms: number): void;
  /** The next broadcast is answered `result: true` but never reaches a block. */
  dropNextBroadcast(): void;
  /** The next triggersmartcontract answer is altered: another contract, or a txID that is not its hash. */
  tamperNextTrigger(how: 'contract' | 'txid'): void;
  /** Broadcasts the node has refused, by code (for assertions). */
  refusals: string[];
  headNumber(): bigint;
  stop(): Promise<void>;
};

const hexOf = (a: string): string => (a.startsWith('T') ? utils.address.toHex(a) : a).toLowerCase();
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const toHexText = (s: string) => Buffer.from(s, 'utf8').toString('hex');

export async function startTronNode(opts: { port?: number; blockIntervalMs?: number | null } = {}): Promise<TronNode> {
  const trx = new Map<string, bigint>();
  const tokens = new Map<string, Map<string, bigint>>();
  const blocks: Block[] = [];
  const infos = new Map<string, Info>();
  const seen = new Set<string>();
  let pending: Pending[] = [];
  let clockOffset = 0;
  let dropNext = false;
  let tamper: 'contract' | 'txid' | null = null;
  const refusals: string[] = [];
  const now = () => Date.now() + clockOffset;
  const head = () => blocks[blocks.length - 1]!;

  const produce = (timestamp = now()) => {
    const number = blocks.length === 0 ? 0n : head().number + 1n;
    const ts = Math.max(timestamp, blocks.length === 0 ? 0 : head().timestamp + 1);
    const blockID = number.toString(16).padStart(16, '0') + randomBytes(24).toString('hex');
    const b: Block = { number, blockID, timestamp: ts, txIds: pending.map((p) => p.txId) };
    for (const p of pending) infos.set(p.txId, { id: p.txId, fee: p.fee, blockNumber: number, blockTimeStamp: ts, failed: p.failed, contract: p.contract });
    pending = [];
    blocks.push(b);
  };
  produce();

  const trxOf = (hex: string) => trx.get(hex) ?? 0n;
  const tokenMap = (contract: string) => tokens.get(hexOf(contract));

  /** The refusal code and message, or null when the transaction is taken (and applied). */
  function accept(body: Record<string, unknown>): { code: string; message: string } | null {
    const rawData = body.raw_data;
    const rawHex = typeof body.raw_data_hex === 'string' ? body.raw_data_hex.toLowerCase() : '';
    let built: string;
    try {
      built = utils.transaction.txPbToRawDataHex(utils.transaction.txJsonToPb({ raw_data: rawData, visible: body.visible === true })).toLowerCase();
    } catch {
      return { code: 'OTHER_ERROR', message: 'raw_data is not a transaction' };
    }
    const txId = sha256(Buffer.from(built, 'hex'));
    if (rawHex !== '' && rawHex !== built) return { code: 'SIGERROR', message: 'raw_data_hex is not the encoding of raw_data' };
    let tx;
    try { tx = decodeRawData(built); } catch (e) { return { code: 'OTHER_ERROR', message: (e as Error).message }; }
    // TAPOS: the reference block must be one of this chain's (by its number's low 16 bits and hash bytes 8..16).
    const ref = blocks.find((b) => (b.number & 0xffffn).toString(16).padStart(4, '0') === tx.refBlockBytes && b.blockID.slice(16, 32) === tx.refBlockHash);
    if (!ref) return { code: 'TAPOS_ERROR', message: `Tapos check error: ref block ${tx.refBlockBytes}/${tx.refBlockHash} is not on this chain` };
    if (tx.expiration <= head().timestamp || tx.expiration > head().timestamp + MAX_EXPIRATION_MS) {
      return { code: 'TRANSACTION_EXPIRATION_ERROR', message: `Transaction expiration, transaction expiration time is ${tx.expiration}, but headBlockTime is ${head().timestamp}` };
    }
    if (seen.has(txId)) return { code: 'DUP_TRANSACTION_ERROR', message: 'dup trans' };
    const [c] = tx.contracts;
    if (tx.contracts.length !== 1 || !c) return { code: 'OTHER_ERROR', message: 'one contract per transaction' };
    const sigs = Array.isArray(body.signature) ? body.signature as unknown[] : [];
    if (sigs.length === 0) return { code: 'SIGERROR', message: 'miss sig or contract' };
    for (const s of sigs) {
      if (typeof s !== 'string' || !/^[0-9a-fA-F]{130}$/.test(s)) return { code: 'SIGERROR', message: 'signature is not 65 bytes' };
      let signer: string;
      try { signer = utils.crypto.ecRecover(txId, s).toLowerCase(); } catch { return { code: 'SIGERROR', message: 'signature does not recover' }; }
      if (signer !== c.owner) return { code: 'SIGERROR', message: `${utils.address.fromHex(signer)} is not under the permission of ${utils.address.fromHex(c.owner)}` };
    }
    if (dropNext) { // answered as taken, but lost before any block (nothing applied)
      dropNext = false;
      return null;
    }
    const applied = apply(c, BigInt(tx.feeLimit));
    if ('code' in applied) return applied;
    seen.add(txId);
    pending.push({ txId, ...applied });
    return null;
  }

  function apply(c: DecodedContract, feeLimit: bigint): { code: string; message: string } | { fee: bigint; failed: string | null; contract: string | null } {
    if (c.type === 'TransferContract' && 'to' in c) {
      if (c.amount <= 0n) return { code: 'CONTRACT_VALIDATE_ERROR', message: 'Amount must be greater than 0.' };
      if (c.to === c.owner) return { code: 'CONTRACT_VALIDATE_ERROR', message: 'Cannot transfer TRX to yourself.' };
      if (!trx.has(c.owner)) return { code: 'CONTRACT_VALIDATE_ERROR', message: 'Validate TransferContract error, no OwnerAccount.' };
      if (trxOf(c.owner) < c.amount) return { code: 'CONTRACT_VALIDATE_ERROR', message: 'Validate TransferContract error, balance is not sufficient.' };
      trx.set(c.owner, trxOf(c.owner) - c.amount);
      trx.set(c.to, trxOf(c.to) + c.amount);
      return { fee: 0n, failed: null, contract: null };
    }
    if (c.type === 'TriggerSmartContract' && 'contract' in c) {
      const book = tokens.get(c.contract);
      if (!book) return { code: 'CONTRACT_VALIDATE_ERROR', message: 'No contract or not a valid smart contract' };
      if (c.callValue !== 0n || c.callTokenValue !== 0n) return { code: 'CONTRACT_VALIDATE_ERROR', message: 'this fake contract takes no value' };
      if (feeLimit <= 0n) return { code: 'CONTRACT_VALIDATE_ERROR', message: 'feeLimit must be > 0' };
      const fee = TRC20_FEE_SUN < feeLimit ? TRC20_FEE_SUN : feeLimit;
      if (trxOf(c.owner) < fee) return { code: 'CONTRACT_VALIDATE_ERROR', message: 'balance is not sufficient to pay the energy' };
      trx.set(c.owner, trxOf(c.owner) - fee);
      if (feeLimit < TRC20_FEE_SUN) return { fee, failed: 'OUT_OF_ENERGY', contract: c.contract };
      const m = /^a9059cbb0{24}([0-9a-f]{40})([0-9a-f]{64})$/.exec(c.data);
      if (!m) return { fee, failed: 'REVERT', contract: c.contract };
      const to = '41' + m[1]!;
      const amount = BigInt('0x' + m[2]!);
      if ((book.get(c.owner) ?? 0n) < amount) return { fee, failed: 'REVERT', contract: c.contract };
      book.set(c.owner, (book.get(c.owner) ?? 0n) - amount);
      book.set(to, (book.get(to) ?? 0n) + amount);
      return { fee, failed: null, contract: c.contract };
    }
    return { code: 'CONTRACT_VALIDATE_ERROR', message: `${c.type} is not supported by this fake node` };
  }

  function trigger(body: Record<string, unknown>, constant: boolean): Record<string, unknown> {
    const owner = hexOf(String(body.owner_address ?? ''));
    const contract = hexOf(String(body.contract_address ?? ''));
    const book = tokens.get(contract);
    if (!book) return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: toHexText('No contract or not a valid smart contract') } };
    const selector = String(body.function_selector ?? '');
    const parameter = String(body.parameter ?? '');
    const data = utils.ethersUtils.keccak256(Buffer.from(selector, 'utf8')).slice(2, 10) + parameter;
    if (constant) {
      const m = /^70a082310{24}([0-9a-f]{40})$/.exec(data);
      const balance = m ? book.get('41' + m[1]!) ?? 0n : 0n;
      return { result: { result: true }, energy_used: 500, constant_result: [balance.toString(16).padStart(64, '0')] };
    }
    const h = head();
    const raw_data = {
      contract: [{ parameter: { value: { data, owner_address: owner, contract_address: tamper === 'contract' ? [...tokens.keys()].find((k) => k !== contract) ?? '41' + '00'.repeat(20) : contract }, type_url: TYPE_URL + 'TriggerSmartContract' }, type: 'TriggerSmartContract' }],
      ref_block_bytes: (h.number & 0xffffn).toString(16).padStart(4, '0'), ref_block_hash: h.blockID.slice(16, 32),
      expiration: h.timestamp + 60_000, fee_limit: Number(body.fee_limit ?? 0), timestamp: now(),
    };
    const rawHex = utils.transaction.txPbToRawDataHex(utils.transaction.txJsonToPb({ raw_data, visible: false })).toLowerCase();
    const txID = tamper === 'txid' ? sha256(Buffer.from(rawHex + '00', 'hex')) : sha256(Buffer.from(rawHex, 'hex'));
    tamper = null;
    return { result: { result: true }, transaction: { visible: false, txID, raw_data, raw_data_hex: rawHex } };
  }

  function handle(path: string, body: Record<string, unknown>): unknown {
    switch (path) {
      case '/wallet/getnowblock': {
        const h = head();
        return { blockID: h.blockID, block_header: { raw_data: { number: Number(h.number), timestamp: h.timestamp, version: 30 } } };
      }
      case '/wallet/getaccount': {
        const a = hexOf(String(body.address ?? ''));
        if (!trx.has(a)) return {};
        return { address: body.visible === true ? utils.address.fromHex(a) : a, balance: Number(trxOf(a)), create_time: 0 };
      }
      case '/wallet/triggersmartcontract': return trigger(body, false);
      case '/wallet/triggerconstantcontract': return trigger(body, true);
      case '/wallet/broadcasttransaction': {
        const txid = typeof body.txID === 'string' ? body.txID : '';
        const refused = accept(body);
        if (refused) {
          refusals.push(refused.code);
          return { code: refused.code, txid, message: toHexText(refused.message) };
        }
        return { result: true, txid };
      }
      case '/wallet/gettransactioninfobyid': {
        const i = infos.get(String(body.value ?? '').toLowerCase());
        if (!i) return {};
        return {
          id: i.id, fee: Number(i.fee), blockNumber: Number(i.blockNumber), blockTimeStamp: i.blockTimeStamp, contractResult: [''],
          ...(i.contract ? { contract_address: i.contract, receipt: { energy_fee: Number(i.fee), energy_usage_total: 13_000, result: i.failed ?? 'SUCCESS' } } : { receipt: { net_usage: 268 } }),
          ...(i.failed ? { result: 'FAILED', resMessage: toHexText(i.failed === 'REVERT' ? 'REVERT opcode executed' : 'Not enough energy') } : {}),
        };
      }
      default: return null;
    }
  }

  const node: TronNode = {
    url: '', controlUrl: '', refusals,
    fund: (address, sun) => { const a = hexOf(address); trx.set(a, trxOf(a) + sun); },
    balance: (address) => trxOf(hexOf(address)),
    createToken: () => {
      const hex = '41' + randomBytes(20).toString('hex');
      tokens.set(hex, new Map());
      return utils.address.fromHex(hex);
    },
    mint: (contract, address, amount) => {
      const book = tokenMap(contract);
      if (!book) throw new Error(`no token ${contract}`);
      book.set(hexOf(address), (book.get(hexOf(address)) ?? 0n) + amount);
    },
    tokenBalance: (contract, address) => tokenMap(contract)?.get(hexOf(address)) ?? 0n,
    produceBlocks: (n) => { for (let i = 0; i < n; i++) produce(); },
    advanceTime: (ms) => { clockOffset += ms; produce(); },
    dropNextBroadcast: () => { dropNext = true; },
    tamperNextTrigger: (how) => { tamper = how; },
    headNumber: () => head().number,
    stop: async () => {},
  };

  function control(path: string, b: Record<string, unknown>): unknown {
    switch (path) {
      case '/control/fund': node.fund(String(b.address), BigInt(String(b.sun ?? 0))); return { address: b.address, balance_sun: node.balance(String(b.address)).toString() };
      case '/control/token': return { contract: node.createToken() };
      case '/control/mint': node.mint(String(b.contract), String(b.address), BigInt(String(b.amount ?? 0))); return { balance: node.tokenBalance(String(b.contract), String(b.address)).toString() };
      case '/control/blocks': node.produceBlocks(Number(b.n ?? 1)); return { head: node.headNumber().toString() };
      case '/control/advance_time': node.advanceTime(Number(b.ms ?? 0)); return { head: node.headNumber().toString() };
      default: return null;
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try { body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> : {}; } catch { /* java-tron answers an Error */ }
      const path = (req.url ?? '/').split('?')[0]!;
      let out: unknown;
      try {
        out = path.startsWith('/control/') ? control(path, body) : handle(path, body);
      } catch (e) {
        out = { Error: (e as Error).message };
      }
      if (out === null) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const interval = opts.blockIntervalMs === undefined ? 200 : opts.blockIntervalMs;
  const timer = interval === null ? null : setInterval(() => produce(), interval);
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.controlUrl = `${node.url}/control`;
  node.stop = async () => {
    if (timer) clearInterval(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return node;
}
