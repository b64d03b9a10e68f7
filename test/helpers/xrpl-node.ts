// A local fake XRP Ledger server for tests and `npm run xrp` (issue 33): rippled's JSON-RPC on
// 127.0.0.1 for the calls the XRP family makes (account_info, fee, ledger_current, ledger,
// server_state, submit, tx). Every submitted blob is DECODED with xrpl's own binary codec, its
// signature VERIFIED against its SigningPubKey (xrpl's verifySignature) and that key checked to
// derive the Account; then it is applied to a small in-memory ledger (balances in drops,
// sequences, the reserve) as rippled would, refusing what rippled refuses: a bad signature
// (temBAD_SIGNATURE), a used sequence (tefPAST_SEQ), a future one (terPRE_SEQ: held until its
// turn), a passed LastLedgerSequence (tefMAX_LEDGER), too little XRP above the reserve
// (tecUNFUNDED_PAYMENT), a missing destination tag (tecDST_TAG_NEEDED), a new account below the
// base reserve (tecNO_DST_INSUF_XRP). tec results claim the fee and use the sequence, as on the
// ledger. Applied transactions are validated when the open ledger closes (every `closeMs`, or the
// control's /control/close). One ledger state answers every ledger_index (validated and current
// views are the same here). Controls (same port): POST /control/fund {address, xrp},
// /control/close {ledgers}, /control/require-dest-tag {address}, /control/drop-next-submit.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decode, deriveAddress, hashes, verifySignature } from 'xrpl';

const REQUIRE_DEST_TAG = 0x00020000;
const BASE_FEE = 10n;
export const RESERVE_BASE = 1_000_000n;
export const RESERVE_INC = 200_000n;

type Account = { balance: bigint; sequence: number; flags: number; ownerCount: number };
type Tx = Record<string, unknown>;
type Applied = { hash: string; tx: Tx; result: string; ledger: number | null };

export type XrplNode = {
  url: string;
  controlUrl: string;
  fund(address: string, drops: bigint): void;
  balance(address: string): bigint;
  account(address: string): Account | undefined;
  requireDestTag(address: string): void;
  closeLedger(n?: number): void;
  /** The next submitted blob is answered tesSUCCESS but never applied (a server that lost it). */
  dropNextSubmit(): void;
  /** Every blob submitted, decoded, with what the server answered. */
  submissions: { hash: string; tx: Tx; engineResult: string }[];
  validatedLedger(): number;
  stop(): Promise<void>;
};

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : JSON.parse(text) as Record<string, unknown>;
}

export async function startXrplNode(opts: { port?: number; closeMs?: number } = {}): Promise<XrplNode> {
  const accounts = new Map<string, Account>();
  const applied = new Map<string, Applied>();
  let open: Applied[] = [];
  const held = new Map<string, { hash: string; tx: Tx }>();
  let validated = 1000;
  let dropNext = false;
  const submissions: XrplNode['submissions'] = [];
  const current = () => validated + 1;
  const reserveOf = (a: Account) => RESERVE_BASE + BigInt(a.ownerCount) * RESERVE_INC;

  function fund(address: string, drops: bigint) {
    const a = accounts.get(address) ?? { balance: 0n, sequence: current(), flags: 0, ownerCount: 0 };
    a.balance += drops;
    accounts.set(address, a);
  }

  /** Applies a transaction whose Sequence is the account's (fee and sequence taken, tec or tes). */
  function apply(hash: string, tx: Tx, a: Account): string {
    const fee = BigInt(tx.Fee as string);
    if (a.balance < fee) return 'terINSUF_FEE_B';
    let result = 'tesSUCCESS';
    if (tx.TransactionType === 'Payment' && typeof tx.Amount === 'string') {
      const amount = BigInt(tx.Amount);
      const dest = accounts.get(tx.Destination as string);
      if (dest && (dest.flags & REQUIRE_DEST_TAG) !== 0 && tx.DestinationTag === undefined) result = 'tecDST_TAG_NEEDED';
      else if (!dest && amount < RESERVE_BASE) result = 'tecNO_DST_INSUF_XRP';
      else if (a.balance - fee - reserveOf(a) < amount) result = 'tecUNFUNDED_PAYMENT';
      else {
        a.balance -= amount;
        const d = dest ?? { balance: 0n, sequence: current(), flags: 0, ownerCount: 0 };
        d.balance += amount;
        accounts.set(tx.Destination as string, d);
      }
    } else if (tx.TransactionType === 'TrustSet') {
      a.ownerCount += 1;
    }
    a.balance -= fee;
    a.sequence += 1;
    const entry = { hash, tx, result, ledger: null };
    applied.set(hash, entry);
    open.push(entry);
    return result;
  }

  /** Held transactions whose turn has come. */
  function drain(address: string) {
    for (;;) {
      const a = accounts.get(address);
      const next = [...held.values()].find((h) => h.tx.Account === address && h.tx.Sequence === a?.sequence);
      if (!a || !next) return;
      held.delete(next.hash);
      if (typeof next.tx.LastLedgerSequence === 'number' && next.tx.LastLedgerSequence < current()) continue;
      apply(next.hash, next.tx, a);
    }
  }

  function closeLedger(n = 1) {
    for (let i = 0; i < n; i++) {
      validated += 1;
      for (const e of open) e.ledger = validated;
      open = [];
      for (const [h, t] of held) if (typeof t.tx.LastLedgerSequence === 'number' && t.tx.LastLedgerSequence < current()) held.delete(h);
    }
  }

  function submit(blob: string): Record<string, unknown> {
    let tx: Tx;
    try { tx = decode(blob) as Tx; } catch { return { status: 'error', error: 'invalidTransaction', error_message: 'cannot decode the blob' }; }
    const hash = hashes.hashSignedTx(blob);
    const answer = (engine: string) => {
      submissions.push({ hash, tx, engineResult: engine });
      return { status: 'success', engine_result: engine, engine_result_message: engine, tx_blob: blob, tx_json: { ...tx, hash } };
    };
    const pub = typeof tx.SigningPubKey === 'string' ? tx.SigningPubKey : '';
    let good = false;
    try { good = pub !== '' && verifySignature(blob) && deriveAddress(pub) === tx.Account; } catch { good = false; }
    if (!good) return answer('temBAD_SIGNATURE');
    if (applied.has(hash) || held.has(hash)) return answer('tefALREADY');
    if (dropNext) {
      dropNext = false;
      return answer('tesSUCCESS');
    }
    if (typeof tx.Fee !== 'string' || BigInt(tx.Fee) < BASE_FEE) return answer('telINSUF_FEE_P');
    const a = accounts.get(tx.Account as string);
    if (!a) return answer('terNO_ACCOUNT');
    if (typeof tx.LastLedgerSequence === 'number' && tx.LastLedgerSequence < current()) return answer('tefMAX_LEDGER');
    const seq = tx.Sequence as number;
    if (seq < a.sequence) return answer('tefPAST_SEQ');
    if (seq > a.sequence) {
      held.set(hash, { hash, tx });
      return answer('terPRE_SEQ');
    }
    const result = apply(hash, tx, a);
    drain(tx.Account as string);
    return answer(result);
  }

  function rpc(method: string, p: Record<string, unknown>): Record<string, unknown> {
    switch (method) {
      case 'account_info': {
        const a = accounts.get(p.account as string);
        if (!a) return { status: 'error', error: 'actNotFound', error_code: 19, error_message: 'Account not found.' };
        return {
          status: 'success', validated: p.ledger_index === 'validated',
          account_data: { Account: p.account, Balance: a.balance.toString(), Sequence: a.sequence, Flags: a.flags, OwnerCount: a.ownerCount, LedgerEntryType: 'AccountRoot' },
          ledger_current_index: current(),
        };
      }
      case 'fee':
        return { status: 'success', ledger_current_index: current(), drops: { base_fee: String(BASE_FEE), median_fee: '5000', minimum_fee: String(BASE_FEE), open_ledger_fee: String(BASE_FEE) } };
      case 'ledger_current':
        return { status: 'success', ledger_current_index: current() };
      case 'ledger':
        return { status: 'success', validated: true, ledger_index: validated, ledger: { ledger_index: String(validated), closed: true } };
      case 'server_state':
        return { status: 'success', state: { validated_ledger: { seq: validated, base_fee: Number(BASE_FEE), reserve_base: Number(RESERVE_BASE), reserve_inc: Number(RESERVE_INC) } } };
      case 'submit':
        if (typeof p.tx_blob !== 'string') return { status: 'error', error: 'invalidParams', error_message: 'tx_blob' };
        return submit(p.tx_blob);
      case 'tx': {
        const e = applied.get(p.transaction as string);
        if (!e) return { status: 'error', error: 'txnNotFound', error_code: 29, error_message: 'Transaction not found.' };
        return { status: 'success', ...e.tx, hash: e.hash, validated: e.ledger !== null, ...(e.ledger !== null ? { ledger_index: e.ledger, meta: { TransactionResult: e.result } } : {}) };
      }
      default:
        return { status: 'error', error: 'unknownCmd', error_message: `Unknown method ${method}` };
    }
  }

  const server = createServer((req, res) => {
    void (async () => {
      try {
        const b = await body(req);
        const path = req.url ?? '/';
        if (path.startsWith('/control/')) {
          const what = path.slice('/control/'.length);
          if (what === 'fund') {
            const drops = BigInt(Math.round(Number(b.xrp) * 1e6));
            fund(String(b.address), drops);
            return json(res, 200, { address: b.address, balance_drops: accounts.get(String(b.address))!.balance.toString() });
          }
          if (what === 'close') {
            closeLedger(Number(b.ledgers ?? 1));
            return json(res, 200, { validated_ledger: validated });
          }
          if (what === 'require-dest-tag') {
            fund(String(b.address), 0n);
            accounts.get(String(b.address))!.flags |= REQUIRE_DEST_TAG;
            return json(res, 200, { address: b.address });
          }
          if (what === 'drop-next-submit') {
            dropNext = true;
            return json(res, 200, {});
          }
          return json(res, 404, { error: 'unknown control' });
        }
        const params = Array.isArray(b.params) && b.params.length > 0 ? b.params[0] as Record<string, unknown> : {};
        return json(res, 200, { result: rpc(String(b.method), params) });
      } catch (e) {
        return json(res, 400, { result: { status: 'error', error: 'invalidParams', error_message: (e as Error).message } });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const timer = setInterval(() => closeLedger(1), opts.closeMs ?? 500);
  timer.unref();
  return {
    url: `http://127.0.0.1:${port}/`, controlUrl: `http://127.0.0.1:${port}/control`,
    fund, balance: (a) => accounts.get(a)?.balance ?? 0n, account: (a) => accounts.get(a),
    requireDestTag: (a) => { fund(a, 0n); accounts.get(a)!.flags |= REQUIRE_DEST_TAG; },
    closeLedger, dropNextSubmit: () => { dropNext = true; }, submissions, validatedLedger: () => validated,
    stop: () => new Promise<void>((resolve) => { clearInterval(timer); server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
