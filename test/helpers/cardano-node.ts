// A local fake Cardano provider for tests and walk-throughs: an HTTP server on 127.0.0.1 that
// answers the Blockfrost routes the Cardano family calls, with Blockfrost's shapes, over the
// in-memory ledger of cardano-ledger.ts (which decodes every submission with the serialization
// library, verifies its witnesses and refuses what the ledger would):
//   GET  /api/v0/addresses/{address}/utxos?page&count   404 for an address never seen
//   GET  /api/v0/epochs/latest/parameters
//   GET  /api/v0/blocks/latest
//   POST /api/v0/tx/submit (Content-Type: application/cbor)   200 "<hash>" | 400 {status_code, error, message}
//   GET  /api/v0/txs/{hash}                              404 until it is on chain
// Controls (JSON): POST /control/fund {address, lovelace} → {utxo}; POST /control/advance {slots}
// (one block, the mempool's valid transactions in it); POST /control/pause, /control/resume
// (submissions wait in the mempool, or land at once in their own block); GET /control/state.
// With `projectId`, every /api/v0 request must carry it in the `project_id` header (403 otherwise).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CardanoLedger, LedgerRefusal, PARAMETERS, type Utxo } from './cardano-ledger.ts';
import { onRequestBody } from './request-body.ts';

const MAX_BODY = 1024 * 1024;

export type CardanoNode = {
  /** The provider's base URL (…/api/v0): the chains row's rpc_url. */
  url: string;
  /** The controls' base URL (…/control). */
  controlUrl: string;
  ledger: CardanoLedger;
  fund(address: string, lovelace: bigint): string;
  balance(address: string): bigint;
  utxosOf(address: string): Utxo[];
  /** Submissions wait in the mempool until advance(). */
  pause(): void;
  resume(): void;
  advance(slots: number): void;
  stop(): Promise<void>;
};

const blockHash = (height: bigint) => height.toString(16).padStart(64, '0');

export async function startCardanoNode(opts: { port?: number; projectId?: string } = {}): Promise<CardanoNode> {
  const ledger = new CardanoLedger();

  const utxoJson = (u: Utxo) => ({
    address: u.address, tx_hash: u.txHash, tx_index: u.index, output_index: u.index,
    amount: [{ unit: 'lovelace', quantity: u.lovelace.toString() }], block: blockHash(ledger.height), data_hash: null, inline_datum: null, reference_script_hash: null,
  });
  const latest = () => ({
    time: 1_700_000_000 + Number(ledger.slot), height: Number(ledger.height), hash: blockHash(ledger.height), slot: Number(ledger.slot),
    epoch: PARAMETERS.epoch, epoch_slot: Number(ledger.slot % 432000n), slot_leader: 'pool1fake', size: 0, tx_count: 0, output: null, fees: null,
    block_vrf: null, op_cert: null, op_cert_counter: null, previous_block: blockHash(ledger.height - 1n), next_block: null, confirmations: 0,
  });

  function api(method: string, path: string, query: URLSearchParams, body: Buffer, contentType: string): [number, unknown] {
    let m: RegExpMatchArray | null;
    if (method === 'GET' && (m = path.match(/^\/addresses\/([^/]+)\/utxos$/))) {
      const address = decodeURIComponent(m[1]!);
      if (!ledger.seenAddresses.has(address)) return notFound();
      const count = Math.min(Math.max(Number(query.get('count') ?? 100) || 100, 1), 100);
      const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
      return [200, ledger.utxosOf(address).slice((page - 1) * count, page * count).map(utxoJson)];
    }
    if (method === 'GET' && path === '/epochs/latest/parameters') return [200, PARAMETERS];
    if (method === 'GET' && path === '/blocks/latest') return [200, latest()];
    if (method === 'GET' && (m = path.match(/^\/txs\/([0-9a-f]{64})$/))) {
      const t = ledger.landed.get(m[1]!);
      if (!t) return notFound();
      return [200, {
        hash: t.hash, block: blockHash(t.blockHeight), block_height: Number(t.blockHeight), block_time: 1_700_000_000 + Number(t.slot), slot: Number(t.slot),
        index: 0, output_amount: [], fees: t.fee.toString(), deposit: '0', size: t.size, invalid_before: null, invalid_hereafter: null,
        utxo_count: 0, withdrawal_count: 0, mir_cert_count: 0, delegation_count: 0, stake_cert_count: 0, pool_update_count: 0,
        pool_retire_count: 0, asset_mint_or_burn_count: 0, redeemer_count: 0, valid_contract: true,
      }];
    }
    if (method === 'POST' && path === '/tx/submit') {
      if (contentType !== 'application/cbor') return [400, { status_code: 400, error: 'Bad Request', message: 'Invalid Content-Type header, expected application/cbor' }];
      try {
        return [200, ledger.submit(body)];
      } catch (e) {
        if (e instanceof LedgerRefusal) return [400, { status_code: 400, error: 'Bad Request', message: e.message }];
        throw e;
      }
    }
    return notFound();
  }

  function control(method: string, path: string, body: Buffer): [number, unknown] {
    const json = body.length > 0 ? JSON.parse(body.toString('utf8')) as Record<string, unknown> : {};
    if (method === 'POST' && path === '/fund') {
      const lovelace = BigInt(String(json.lovelace));
      return [200, { utxo: ledger.fund(String(json.address), lovelace) }];
    }
    if (method === 'POST' && path === '/advance') {
      ledger.advance(BigInt(Number(json.slots ?? 1)));
      return [200, state()];
    }
    if (method === 'POST' && path === '/pause') { ledger.paused = true; return [200, state()]; }
    if (method === 'POST' && path === '/resume') { ledger.paused = false; return [200, state()]; }
    if (method === 'GET' && path === '/state') return [200, state()];
    return notFound();
  }

  const state = () => ({
    height: Number(ledger.height), slot: Number(ledger.slot), paused: ledger.paused, mempool: ledger.mempool.map((p) => p.hash),
    landed: ledger.landed.size, refusals: ledger.refusals.slice(-20),
  });

  const server = http.createServer((req, res) => {
    const reply = ([status, payload]: [number, unknown]) => { res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload)); };
    onRequestBody(req, MAX_BODY, (body) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      try {
        if (url.pathname.startsWith('/api/v0/')) {
          if (opts.projectId !== undefined && req.headers.project_id !== opts.projectId) {
            return reply([403, { status_code: 403, error: 'Forbidden', message: 'Invalid project token.' }]);
          }
          return reply(api(req.method ?? 'GET', url.pathname.slice('/api/v0'.length), url.searchParams, body, String(req.headers['content-type'] ?? '')));
        }
        if (url.pathname.startsWith('/control/')) return reply(control(req.method ?? 'GET', url.pathname.slice('/control'.length), body));
        reply(notFound());
      } catch (e) {
        reply([500, { status_code: 500, error: 'Internal Server Error', message: (e as Error).message }]);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: `${base}/api/v0`,
    controlUrl: `${base}/control`,
    ledger,
    fund: (address, lovelace) => ledger.fund(address, lovelace),
    balance: (address) => ledger.balance(address),
    utxosOf: (address) => ledger.utxosOf(address),
    pause: () => { ledger.paused = true; },
    resume: () => { ledger.paused = false; },
    advance: (slots) => { ledger.advance(BigInt(slots)); },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function notFound(): [number, unknown] {
  return [404, { status_code: 404, error: 'Not Found', message: 'The requested component has not been found.' }];
}
