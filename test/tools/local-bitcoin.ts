// `npm run bitcoin`: a local Bitcoin regtest node for trying the Intents API by hand (docs
// walk-through). The same btcd the tests use (test/helpers/btcd-node.ts), JSON-RPC on
// 127.0.0.1:$BITCOIN_RPC_PORT (default 18443, Bitcoin Core's regtest port), credentials in the
// URL. btcd cannot mine to an arbitrary address, so a small control endpoint on
// 127.0.0.1:$BITCOIN_CONTROL_PORT (default 18444) funds one from the miner's coins and mines:
//   curl -X POST <control_url>/fund -d '{"address":"bcrt1q…","btc":"0.5"}'   → {"txid": …} (confirmed)
//   curl -X POST <control_url>/mine -d '{"blocks":1}'                        → {"blocks": [hash, …]}
// Prints one JSON line with both URLs and keeps running; Ctrl-C stops it and deletes its data.
import http from 'node:http';
import { startBtcdNode } from '../helpers/btcd-node.ts';
import { parseBtc } from '../../domain/intents/families/bitcoin/btc-amount.ts';
import { isDestination } from '../../domain/intents/families/bitcoin/bitcoin-network.ts';
import * as bitcoin from 'bitcoinjs-lib';

const node = await startBtcdNode({ port: Number(process.env.BITCOIN_RPC_PORT ?? 18443) });
const controlPort = Number(process.env.BITCOIN_CONTROL_PORT ?? 18444);

async function handle(path: string, body: Record<string, unknown>): Promise<[number, unknown]> {
  if (path === '/fund') {
    const address = String(body.address ?? '');
    if (!isDestination(address, bitcoin.networks.regtest)) return [400, { error: 'address: not a regtest address' }];
    const sats = parseBtc(body.btc ?? '1', 'btc');
    return [200, { txid: await node.fund(address, sats) }];
  }
  if (path === '/mine') {
    const blocks = Number(body.blocks ?? 1);
    if (!Number.isInteger(blocks) || blocks < 1 || blocks > 1000) return [400, { error: 'blocks: 1 to 1000' }];
    return [200, { blocks: await node.mine(blocks) }];
  }
  return [404, { error: 'POST /fund {address, btc} or /mine {blocks}' }];
}

const control = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let body: Record<string, unknown> = {};
    try { body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> : {}; } catch { /* empty body */ }
    const answer = req.method === 'POST' ? handle(req.url ?? '', body) : Promise.resolve([405, { error: 'POST only' }] as [number, unknown]);
    answer.then(([status, payload]) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    }, (e: Error) => {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: e.message }));
    });
  });
});
await new Promise<void>((resolve) => control.listen(controlPort, '127.0.0.1', () => resolve()));

process.stdout.write(`${JSON.stringify({
  chain: node.net.name, network: node.net.network, chain_id: node.net.chainId,
  rpc_url: node.rpcUrl, control_url: `http://127.0.0.1:${controlPort}`,
})}\n`);
const stop = () => {
  control.close();
  void node.stop().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
