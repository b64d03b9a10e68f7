// A local x402 facilitator for tests: the x402 packages' own x402Facilitator with the EVM "exact"
// scheme (EIP-3009 transferWithAuthorization), settling on a local EVM node (evm-node.ts) from a
// funded key, behind the facilitator HTTP protocol that HTTPFacilitatorClient speaks:
//   POST /verify, POST /settle  {x402Version, paymentPayload, paymentRequirements}
//     -> 200 VerifyResponse {isValid, invalidReason?, invalidMessage?, payer?}
//     -> 200 SettleResponse {success, transaction, network, payer?, errorReason?, errorMessage?}
//   GET /supported -> {kinds: [{x402Version: 2, scheme: 'exact', network}], extensions, signers}
// Failures answer as the x402 reference facilitator does: an invalid payment or a failed settle is a
// 200 with isValid/success false; a malformed request a 400 and an exception a 500, {error}.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import {
  createWalletClient, defineChain, http as httpTransport, nonceManager, parseEther, publicActions, toHex,
  type Address, type Hex, type Transport,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { installMulticall3 } from './eip3009-token.ts';
import type { EvmNode } from './evm-node.ts';
import { onRequestBody } from './request-body.ts';

export type X402Facilitator = {
  /** http://127.0.0.1:<port>: what HTTPFacilitatorClient({ url }) takes. */
  url: string;
  /** The facilitator's account: it pays the gas of every settle. */
  address: Address;
  /** The CAIP-2 network it settles on: eip155:<chainId>. */
  network: `eip155:${number}`;
  /** Every request answered, in order: for asserting how often a client called (e.g. retried). */
  calls: { path: string; status: number }[];
  /**
   * The next `n` POST /settle answer HTTP 500 {error}. By default before anything happens (the
   * facilitator was down); with afterSettling, once the payment has settled on chain (the answer
   * was lost), which is what makes a blind retry dangerous.
   */
  failNextSettles(n: number, opts?: { afterSettling?: boolean }): void;
  stop(): Promise<void>;
};

type NodeRef = Pick<EvmNode, 'url' | 'chainId' | 'fund' | 'rpc'>;
type Reply = [status: number, body: unknown];

const MAX_BODY = 1024 * 1024;
// EIP-7825's per-transaction gas cap. EDR defaults an eth_call's or eth_estimateGas's gas to the
// block limit, above this cap, and then refuses its own default. So the facilitator's transport
// fills in the cap when none is given, and viem's reads and gas estimates work unchanged.
const TX_GAS_CAP = toHex(16_777_216);
function capCallGas(url: string): Transport {
  return (opts) => {
    const inner = httpTransport(url)(opts);
    const request: typeof inner.request = ({ method, params }, o) => {
      if ((method === 'eth_call' || method === 'eth_estimateGas') && Array.isArray(params) && params[0] && !params[0].gas) {
        params = [{ ...params[0], gas: TX_GAS_CAP }, ...params.slice(1)];
      }
      return inner.request({ method, params }, o);
    };
    return { ...inner, request };
  };
}

export async function startX402Facilitator(opts: { node: NodeRef; privateKey?: Hex }): Promise<X402Facilitator> {
  const { node } = opts;
  const network = `eip155:${node.chainId}` as const;
  // nonceManager: concurrent settles from one key get distinct nonces.
  const account = privateKeyToAccount(opts.privateKey ?? generatePrivateKey(), { nonceManager });
  await node.fund(account.address, parseEther('100'));
  // x402 explains a failed verify through Multicall3 (a real chain has it); without it every
  // failure reads "simulation failed" rather than the spent nonce or short balance it is.
  await installMulticall3(node);
  const chain = defineChain({ id: node.chainId, name: `edr-${node.chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [node.url] } } });
  const client = createWalletClient({ account, chain, transport: capCallGas(node.url), pollingInterval: 50 }).extend(publicActions);

  // The signer as the x402 example facilitator builds it from a viem client. `as never`: the
  // x402 signer types are looser than viem's generic ABI-typed parameters.
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    getCode: (a) => client.getCode(a),
    readContract: (a) => client.readContract({ ...a, args: a.args ?? [] } as never),
    verifyTypedData: (a) => client.verifyTypedData(a as never),
    writeContract: (a) => client.writeContract(a as never),
    sendTransaction: (a) => client.sendTransaction(a),
    waitForTransactionReceipt: (a) => client.waitForTransactionReceipt(a),
  }, { confirmationTimeoutMs: 30_000 });
  const facilitator = new x402Facilitator().register(network, new ExactEvmScheme(signer));

  let failing = { n: 0, afterSettling: false };
  const calls: X402Facilitator['calls'] = [];

  async function answer(method: string, path: string, body: string): Promise<Reply> {
    if (method === 'GET' && path === '/supported') return [200, facilitator.getSupported()];
    if (method !== 'POST' || (path !== '/verify' && path !== '/settle')) return [404, { error: `no route ${method} ${path}` }];
    let parsed: { paymentPayload?: PaymentPayload; paymentRequirements?: PaymentRequirements };
    try { parsed = JSON.parse(body); } catch { return [400, { error: 'body is not JSON' }]; }
    const { paymentPayload, paymentRequirements } = parsed ?? {};
    if (!paymentPayload || !paymentRequirements) return [400, { error: 'Missing paymentPayload or paymentRequirements' }];
    if (path === '/verify') return [200, await facilitator.verify(paymentPayload, paymentRequirements)];

    const fail = failing.n > 0 ? failing : null;
    if (fail) fail.n -= 1;
    if (fail && !fail.afterSettling) return [500, { error: 'injected failure: settle not attempted' }];
    const result = await facilitator.settle(paymentPayload, paymentRequirements);
    if (fail) return [500, { error: `injected failure after settling (success: ${result.success})` }];
    return [200, result];
  }

  const server = http.createServer((req, res) => {
    onRequestBody(req, MAX_BODY, (body) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      answer(req.method ?? 'GET', path, body.toString('utf8'))
        .catch((e: Error): Reply => [500, { error: e.message }])
        .then(([status, payload]) => {
          calls.push({ path, status });
          res.writeHead(status, { 'content-type': 'application/json' })
            .end(JSON.stringify(payload, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
        });
    });
  });
  // Port 0: the kernel picks a free port at bind time.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    address: account.address,
    network,
    calls,
    failNextSettles(n, o = {}) {
      failing = { n, afterSettling: o.afterSettling ?? false };
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
