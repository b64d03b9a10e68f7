// The Bitcoin node client: Basic credentials from the URL's userinfo (never the URL itself in an
// error), the two failure classes (ChainUnavailable: no usable answer; ChainRpcError: the node's
// refusal, whatever HTTP status carried it), batches; and how sendrawtransaction refusals read.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChainRpcError, ChainUnavailable } from '../../domain/chains/rpc-errors.ts';
import { BitcoinRpc } from '../../domain/intents/families/bitcoin/bitcoin-rpc.ts';
import { refusalKind } from '../../domain/intents/families/bitcoin/broadcast-refusals.ts';
import { BitcoinNode } from '../../domain/intents/families/bitcoin/bitcoin-node.ts';
import { freePort } from '../../db/free-port.ts';

type Reply = { status?: number; body: unknown; delayMs?: number };
let server: http.Server;
let port: number;
let handler: (req: { auth: string | undefined; url: string; body: any }) => Reply;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = handler({ auth: req.headers.authorization, url: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      setTimeout(() => {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const SECRET = 'hunter2-very-secret';
const client = (url = `http://rpc-user:${encodeURIComponent(SECRET)}@127.0.0.1:${port}/wallet/path`, timeoutMs = 2_000) =>
  new BitcoinRpc({ chainId: 9_000_000_000_003, name: 'bitcoin-regtest', rpcUrl: url }, { timeoutMs });

async function failure(p: Promise<unknown>): Promise<Error> {
  try { await p; } catch (e) { return e as Error; }
  throw new Error('expected a failure');
}

test('credentials travel as Basic auth, the path stays, the result comes back', async () => {
  let seen: { auth: string | undefined; url: string; body: any } | null = null;
  handler = (req) => { seen = req; return { body: { jsonrpc: '2.0', id: req.body.id, result: 812 } }; };
  expect(await client().call('getblockcount')).toBe(812);
  expect(seen!.auth).toBe(`Basic ${Buffer.from(`rpc-user:${SECRET}`).toString('base64')}`);
  expect(seen!.url).toBe('/wallet/path');
  expect(seen!.body).toMatchObject({ method: 'getblockcount', params: [] });
});

test("the node's error is a ChainRpcError, also when Bitcoin Core sends it with HTTP 500 or 404", async () => {
  for (const status of [200, 500, 404]) {
    handler = (req) => ({ status, body: { result: null, error: { code: -26, message: 'TX rejected: dust' }, id: req.body.id } });
    const e = await failure(client().call('sendrawtransaction', ['00']));
    expect(e).toBeInstanceOf(ChainRpcError);
    expect(e).toMatchObject({ code: -26, method: 'sendrawtransaction', message: 'TX rejected: dust' });
  }
});

test('no usable answer is ChainUnavailable, and never names the URL or the password', async () => {
  const cases: Array<[Reply | 'refused', string]> = [
    [{ status: 401, body: '' }, 'http_status'],
    [{ status: 503, body: 'busy' }, 'http_status'],
    [{ status: 200, body: '<html>' }, 'bad_response'],
    [{ status: 200, body: { jsonrpc: '2.0', id: 999_999, result: 1 } }, 'bad_response'],
    [{ status: 200, body: { result: null, error: { code: -28, message: 'Loading block index…' } } }, 'node_error'],
    [{ status: 200, body: {}, delayMs: 500 }, 'timeout'],
  ];
  for (const [reply, reason] of cases) {
    handler = () => reply as Reply;
    const e = await failure(client(undefined, 200).call('getblockcount'));
    expect({ reason, got: (e as ChainUnavailable).reason, cls: e.constructor.name }).toEqual({ reason, got: reason, cls: 'ChainUnavailable' });
    expect(e.message).not.toContain(SECRET);
    expect(e.message).not.toContain(String(port));
  }
  const closed = await freePort();
  const e = await failure(client(`http://u:${SECRET}@127.0.0.1:${closed}/`).call('getblockcount'));
  expect(e).toBeInstanceOf(ChainUnavailable);
  expect((e as ChainUnavailable).reason).toBe('connection');
  expect(e.message).toMatch(/bitcoin-regtest/);
  expect(e.message).not.toContain(SECRET);
  expect(e.message).not.toContain(String(closed));
  expect(await failure(client('not a url').call('getblockcount'))).toBeInstanceOf(ChainUnavailable);
  expect(await failure(client(`http://u:%E0%A4%A@127.0.0.1:${port}/`).call('getblockcount'))).toBeInstanceOf(ChainUnavailable);
  expect(await failure(client(`ftp://u:p@127.0.0.1:${port}/`).call('getblockcount'))).toBeInstanceOf(ChainUnavailable);
});

test('a node that echoes the URL in its error has it scrubbed', async () => {
  handler = (req) => ({ body: { id: req.body.id, result: null, error: { code: -1, message: `bad thing at http://rpc-user:${SECRET}@x/ and ${SECRET}` } } });
  const e = await failure(client().call('getblockcount'));
  expect(e).toBeInstanceOf(ChainRpcError);
  expect(e.message).not.toContain(SECRET);
});

test('batches: answers in call order, each a result or its own refusal', async () => {
  handler = (req) => ({
    body: [...req.body].reverse().map((c: any) => (c.params[0] === 'bad'
      ? { jsonrpc: '2.0', id: c.id, error: { code: -5, message: 'No information available about transaction' } }
      : { jsonrpc: '2.0', id: c.id, result: { n: c.params[0] } })),
  });
  const answers = await client().batch([
    { method: 'gettxout', params: ['a', 0] }, { method: 'gettxout', params: ['bad', 0] }, { method: 'gettxout', params: ['c', 1] },
  ]);
  expect(answers[0]).toEqual({ ok: true, result: { n: 'a' } });
  expect(answers[1]!.ok).toBe(false);
  expect(!answers[1]!.ok && answers[1]!.error.code).toBe(-5);
  expect(answers[2]).toEqual({ ok: true, result: { n: 'c' } });
  handler = () => ({ body: [] });
  expect(await failure(client().batch([{ method: 'gettxout', params: ['a', 0] }]))).toBeInstanceOf(ChainUnavailable);
});

test('a node without the indexes the family needs (or Bitcoin Core, without searchrawtransactions) is unavailable, and says why', async () => {
  const node = new BitcoinNode({ chainId: 1, name: 'bitcoin-regtest', rpcUrl: `http://u:p@127.0.0.1:${port}` });
  const refusals: Array<[number, string]> = [
    [-1, 'Address index must be enabled (--addrindex)'],
    [-32601, 'Method not found'],
    [-5, 'The transaction index must be enabled to query the blockchain (specify --txindex)'],
  ];
  for (const [code, message] of refusals) {
    handler = (req) => ({ body: { jsonrpc: '2.0', id: req.body.id, error: { code, message } } });
    const e = await failure(code === -5 ? node.transaction('ab'.repeat(32)) : node.history('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'));
    expect(e).toBeInstanceOf(ChainUnavailable);
    expect(e.message).toMatch(/--txindex --addrindex/);
  }
  // An address the index has never seen is no error: no history.
  handler = (req) => ({ body: { jsonrpc: '2.0', id: req.body.id, error: { code: -5, message: 'No information available about address' } } });
  expect(await node.history('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080')).toEqual([]);
  expect(await node.transaction('ab'.repeat(32))).toBeNull();
  // Pages of 500, oldest first: a full last page is followed by btcd's "no information" for the skip past the end.
  const skips: number[] = [];
  handler = (req) => {
    const [, , skip, count] = req.body.params as number[];
    skips.push(skip!);
    if (skip! >= 1000) return { body: { jsonrpc: '2.0', id: req.body.id, error: { code: -5, message: 'No information available about address' } } };
    return { body: { jsonrpc: '2.0', id: req.body.id, result: Array.from({ length: count! }, (_, i) => ({ hex: `tx${skip! + i}`, confirmations: i % 2 })) } };
  };
  const all = await node.history('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080');
  expect(skips).toEqual([0, 500, 1000]);
  expect(all).toHaveLength(1000);
  expect(all[999]).toEqual({ hex: 'tx999', confirmations: 1 });
});

test('sendrawtransaction refusals of btcd and Bitcoin Core read as known, inputs, conflict, transient or permanent', () => {
  const kind = (code: number, message: string) => refusalKind(new ChainRpcError(1, 'sendrawtransaction', code, message, null));
  // btcd 0.24
  expect(kind(-26, 'TX rejected: already have transaction in mempool 1f2e')).toBe('known');
  expect(kind(-27, 'TX rejected: transaction already exists in blockchain')).toBe('known');
  expect(kind(-25, 'TX rejected: orphan transaction 1f2e references outputs of unknown or fully-spent transaction 3c4d')).toBe('inputs');
  expect(kind(-26, 'TX rejected: output already spent in mempool: output 3c4d:0, tx 5e6f')).toBe('conflict');
  expect(kind(-26, 'TX rejected: 1f2e: replacement transaction has an insufficient absolute fee: needs 300, has 200')).toBe('conflict');
  expect(kind(-26, 'TX rejected: transaction 1f2e has 100 fees which is under the required amount of 141')).toBe('transient');
  expect(kind(-26, 'TX rejected: transaction 1f2e is not standard: transaction output 0: payment of 100 is dust')).toBe('permanent');
  expect(kind(-26, 'TX rejected: failed to validate input 1f2e:0 which references output 3c4d:0 - signature not empty on failed checksig')).toBe('permanent');
  expect(kind(-22, 'TX decode failed: unexpected EOF')).toBe('permanent');
  // Bitcoin Core
  expect(kind(-27, 'Transaction already in block chain')).toBe('known');
  expect(kind(-26, 'txn-already-in-mempool')).toBe('known');
  expect(kind(-25, 'bad-txns-inputs-missingorspent')).toBe('inputs');
  expect(kind(-26, 'txn-mempool-conflict')).toBe('conflict');
  expect(kind(-26, 'insufficient fee, rejecting replacement 1f2e; new feerate 0.00001 <= old feerate 0.00002')).toBe('conflict');
  expect(kind(-26, 'min relay fee not met, 100 < 141')).toBe('transient');
  expect(kind(-26, 'mempool full')).toBe('transient');
  expect(kind(-26, 'too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]')).toBe('transient');
  expect(kind(-26, 'non-mandatory-script-verify-flag (Signature must be zero for failed CHECK(MULTI)SIG operation)')).toBe('permanent');
  expect(kind(-26, 'dust')).toBe('permanent');
  expect(kind(-1, 'something odd')).toBe('transient');
});
