// The Solana JSON-RPC client (domain/intents/families/solana/solana-rpc.ts) against small servers
// that answer as real nodes and proxies do: integers beyond 2^53 stay exact, the two failure
// kinds are told apart (ChainUnavailable: retry; SolanaRpcError, a ChainRpcError: the node's
// verdict, with Solana's structured data kept), and no error names the endpoint.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChainRpcError, ChainUnavailable } from '../../domain/chains/rpc-errors.ts';
import { SolanaRpc, SolanaRpcError } from '../../domain/intents/families/solana/solana-rpc.ts';

type Answer = (id: unknown) => { status?: number; body: string };
let answer: Answer;
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      const { status = 200, body: out } = answer((JSON.parse(body) as { id: unknown }).id);
      res.writeHead(status, { 'content-type': 'application/json' }).end(out);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/key/secret-provider-key-42`;
});
afterAll(async () => { server.closeAllConnections(); await new Promise<void>((r) => server.close(() => r())); });

const rpc = () => new SolanaRpc({ name: 'solana-test', chainId: 900_002, network: 'localnet', rpcUrl: url, confirmations: 1 });
const ok = (result: string): Answer => (id) => ({ body: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}` });
const rpcError = (error: string): Answer => (id) => ({ body: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${error}}` });
const failure = (work: Promise<unknown>) => work.then(() => { throw new Error('expected a failure'); }, (e: unknown) => e as Error);

describe('SolanaRpc', () => {
  it('keeps lamports beyond 2^53 exact', async () => {
    answer = ok('{"context":{"slot":1},"value":18446744073709551615}');
    expect(await rpc().balance('x')).toBe(18_446_744_073_709_551_615n);
    answer = ok('{"context":{"slot":1},"value":{"blockhash":"abc","lastValidBlockHeight":9007199254740993}}');
    expect(await rpc().latestBlockhash()).toEqual({ blockhash: 'abc', lastValidBlockHeight: 9_007_199_254_740_993n });
  });

  it('reads signature statuses: unknown, confirmed, finalized with an error', async () => {
    answer = ok('{"context":{"slot":9},"value":[null]}');
    expect(await rpc().signatureStatus('s')).toBeNull();
    answer = ok('{"context":{"slot":9},"value":[{"slot":7,"confirmations":2,"err":null,"status":{"Ok":null},"confirmationStatus":"confirmed"}]}');
    expect(await rpc().signatureStatus('s')).toEqual({ slot: 7n, confirmations: 2, err: null, confirmationStatus: 'confirmed' });
    answer = ok('{"context":{"slot":99},"value":[{"slot":7,"confirmations":null,"err":{"InstructionError":[0,{"Custom":1}]},"confirmationStatus":"finalized"}]}');
    expect(await rpc().signatureStatus('s')).toMatchObject({ confirmations: null, err: { InstructionError: [0, { Custom: 1 }] }, confirmationStatus: 'finalized' });
  });

  it('a preflight refusal is a ChainRpcError carrying the node\'s data', async () => {
    answer = rpcError('{"code":-32002,"message":"Transaction simulation failed: Blockhash not found","data":{"err":"BlockhashNotFound","logs":[]}}');
    const e = await failure(rpc().sendTransaction('AA=='));
    expect(e).toBeInstanceOf(SolanaRpcError);
    expect(e).toBeInstanceOf(ChainRpcError);
    expect(e.name).toBe('ChainRpcError');
    expect((e as SolanaRpcError).solanaData).toEqual({ err: 'BlockhashNotFound', logs: [] });
    expect((e as SolanaRpcError).code).toBe(-32002);
  });

  it('node hiccups, HTTP failures and garbage are ChainUnavailable, and never name the URL', async () => {
    const cases: [Answer, string][] = [
      [rpcError('{"code":-32005,"message":"Node is behind by 42 slots"}'), 'node_error'],
      [rpcError('{"code":-32603,"message":"Internal error"}'), 'node_error'],
      [rpcError(`{"code":-32000,"message":"Too many requests for ${url}"}`), 'node_error'],
      [() => ({ status: 429, body: 'slow down' }), 'http_status'],
      [() => ({ status: 502, body: `<html>bad gateway ${url}</html>` }), 'http_status'],
      [() => ({ body: 'not json' }), 'bad_response'],
      [() => ({ body: '{"jsonrpc":"2.0","id":"other","result":1}' }), 'bad_response'],
      [ok('{"context":{"slot":1},"value":"lots"}'), 'bad_response'],
    ];
    for (const [a, reason] of cases) {
      answer = a;
      const e = await failure(rpc().balance('x'));
      expect(e).toBeInstanceOf(ChainUnavailable);
      expect((e as ChainUnavailable).reason).toBe(reason);
      expect(e.message).not.toContain('secret-provider-key');
      expect(e.message).toContain('solana-test');
    }
  });

  it('a verdict error never carries the URL either', async () => {
    answer = rpcError(`{"code":-32602,"message":"Invalid param: ${url}"}`);
    const e = await failure(rpc().accountInfo('x'));
    expect(e).toBeInstanceOf(SolanaRpcError);
    expect(e.message).not.toContain('secret-provider-key');
  });
});
