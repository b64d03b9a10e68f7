// x402 payments on a local chain, with no service in between: proves the test pieces that the
// x402 tests build on. A real EVM node (evm-node.ts), a USDC-like EIP-3009 token
// (eip3009-token.ts), the x402 packages' own facilitator behind the facilitator HTTP protocol
// (x402-facilitator.ts), and the x402 client: a signed v2 payment verifies, settles on chain
// once and only once, an injected 500 is seen as one, and @x402/fetch pays a 402 on its own.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Client } from '@x402/core/client';
import {
  HTTPFacilitatorClient, decodePaymentResponseHeader, decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader,
} from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { concat, numberToHex, parseSignature, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startEvmNode, type EvmNode } from '../helpers/evm-node.ts';
import { deployEip3009Token, type Eip3009Token } from '../helpers/eip3009-token.ts';
import { newAddress } from '../helpers/evm-contracts.ts';
import { startX402Facilitator, type X402Facilitator } from '../helpers/x402-facilitator.ts';

const TX_HASH = /^0x[0-9a-f]{64}$/;
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const payer = privateKeyToAccount(generatePrivateKey());
let node: EvmNode;
let token: Eip3009Token;
let facilitator: X402Facilitator;
let client: x402Client;

beforeAll(async () => {
  node = await startEvmNode();
  token = await deployEip3009Token(node);
  await token.mint(payer.address, 10_000_000n); // 10 USDC
  facilitator = await startX402Facilitator({ node });
  // x402Client pays only assets it knows (mainnet USDC …) unless told: allow this token, capped at 2 USDC.
  client = new x402Client().register(facilitator.network, new ExactEvmScheme(toClientEvmSigner(payer)))
    .setSpendControls({ allowedAssets: [{ network: facilitator.network, asset: token.address, maxAmountPerPayment: '2000000' }] });
});
afterAll(async () => {
  await facilitator?.stop();
  await node?.stop();
});

const requirements = (payTo = newAddress(), amount = '1500'): PaymentRequirements => ({
  scheme: 'exact', network: facilitator.network, asset: token.address, amount, payTo, maxTimeoutSeconds: 60,
  extra: { name: token.name, version: token.version },
});
const paymentRequired = (accepts: PaymentRequirements, url = 'http://127.0.0.1/thing'): PaymentRequired => ({
  x402Version: 2, error: 'Payment required', resource: { url, description: 'a paid thing', mimeType: 'application/json' }, accepts: [accepts],
});
/** POSTs to the facilitator as HTTPFacilitatorClient does, and returns the raw answer. */
async function post(path: '/verify' | '/settle', paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements) {
  const res = await fetch(`${facilitator.url}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ x402Version: paymentPayload.x402Version, paymentPayload, paymentRequirements }),
  });
  return { status: res.status, body: await res.json() as Record<string, unknown> };
}

test('GET /supported names the exact scheme on this network and the facilitator signer', async () => {
  const supported = await new HTTPFacilitatorClient({ url: facilitator.url }).getSupported();
  expect(supported.kinds).toEqual([{ x402Version: 2, scheme: 'exact', network: facilitator.network }]);
  expect(supported.signers).toEqual({ 'eip155:*': [facilitator.address] });
});

test('a v2 payment verifies, settles on chain once, and not a second time', async () => {
  const req = requirements();
  const payload = await client.createPaymentPayload(paymentRequired(req));
  expect(payload).toEqual({
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/thing', description: 'a paid thing', mimeType: 'application/json' },
    accepted: req,
    payload: {
      authorization: {
        from: payer.address, to: req.payTo, value: '1500', validAfter: '0',
        validBefore: expect.stringMatching(/^\d+$/), nonce: expect.stringMatching(TX_HASH),
      },
      signature: expect.stringMatching(/^0x[0-9a-f]{130}$/),
    },
  });

  expect(await post('/verify', payload, req)).toEqual({ status: 200, body: { isValid: true, payer: payer.address } });
  const settled = await post('/settle', payload, req);
  expect(settled).toEqual({
    status: 200, body: { success: true, transaction: expect.stringMatching(TX_HASH), network: facilitator.network, payer: payer.address },
  });
  expect(await token.balanceOf(req.payTo as Address)).toBe(1500n);

  // The authorization's nonce is spent: the token refuses it (nothing is mined), and the facilitator says why.
  const again = await post('/settle', payload, req);
  expect(again).toEqual({ status: 200, body: expect.objectContaining({ success: false, transaction: '', errorReason: 'invalid_exact_evm_nonce_already_used' }) });
  expect((await post('/verify', payload, req)).body).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' });
  expect(await token.balanceOf(req.payTo as Address)).toBe(1500n);
});

test('verify names a short balance and a changed amount', async () => {
  const poor = privateKeyToAccount(generatePrivateKey());
  const poorClient = new x402Client().register(facilitator.network, new ExactEvmScheme(toClientEvmSigner(poor))).setSpendControls(false);
  const req = requirements();
  const payload = await poorClient.createPaymentPayload(paymentRequired(req));
  expect((await post('/verify', payload, req)).body).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_insufficient_balance' });
  const paid = await client.createPaymentPayload(paymentRequired(req));
  expect((await post('/verify', paid, { ...req, amount: '1501' })).body)
    .toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_payload_authorization_value_mismatch' });
});

test('the token: the packed-signature form settles too, and a malleated (high-s) signature is refused', async () => {
  const req = requirements();
  const { payload } = await client.createPaymentPayload(paymentRequired(req));
  const { authorization: a, signature } = payload as { authorization: Record<string, string>; signature: Hex };
  const args = [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce];
  // The same signature's twin: s -> n - s with the other recovery id recovers the same signer.
  const { r, s, v } = parseSignature(signature);
  const twin = concat([r, numberToHex(SECP256K1_N - BigInt(s), { size: 32 }), v === 27n ? '0x1c' : '0x1b']);
  await expect(token.write('transferWithAuthorization', [...args, twin])).rejects.toThrow(/invalid signature 's' value/);
  await token.write('transferWithAuthorization', [...args, signature]);
  expect(await token.balanceOf(req.payTo as Address)).toBe(1500n);
  await expect(token.write('transferWithAuthorization', [...args, signature])).rejects.toThrow(/authorization is used or canceled/);
});

test('failNextSettles: the next settle answers 500 without paying; one after settling answers 500 having paid', async () => {
  const fc = new HTTPFacilitatorClient({ url: facilitator.url });
  const req = requirements();
  const payload = await client.createPaymentPayload(paymentRequired(req));
  facilitator.failNextSettles(1);
  await expect(fc.settle(payload, req)).rejects.toThrow(/Facilitator settle failed \(500\)/);
  expect(await token.balanceOf(req.payTo as Address)).toBe(0n);
  expect(await fc.settle(payload, req)).toMatchObject({ success: true, transaction: expect.stringMatching(TX_HASH) });
  expect(facilitator.calls.slice(-2)).toEqual([{ path: '/settle', status: 500 }, { path: '/settle', status: 200 }]);

  // The answer lost after the transfer: a blind retry then finds the authorization spent.
  const req2 = requirements();
  const payload2 = await client.createPaymentPayload(paymentRequired(req2));
  facilitator.failNextSettles(1, { afterSettling: true });
  await expect(fc.settle(payload2, req2)).rejects.toThrow(/\(500\)/);
  expect(await token.balanceOf(req2.payTo as Address)).toBe(1500n);
  expect(await fc.settle(payload2, req2)).toMatchObject({ success: false, errorReason: expect.stringMatching(/nonce/i) });
});

test('wrapFetchWithPayment pays a 402 (PAYMENT-REQUIRED) with a PAYMENT-SIGNATURE the server settles', async () => {
  const fc = new HTTPFacilitatorClient({ url: facilitator.url });
  const req = requirements();
  const seen: string[] = [];
  // A paid resource: 402 with the requirements, then verify + settle what the client signed.
  const server = http.createServer((r, res) => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${r.url}`;
    const signature = r.headers['payment-signature'];
    seen.push(signature ? 'paid' : 'unpaid');
    if (typeof signature !== 'string') {
      res.writeHead(402, { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(paymentRequired(req, url)), 'content-type': 'application/json' }).end('{}');
      return;
    }
    (async () => {
      const payload = decodePaymentSignatureHeader(signature);
      const verified = await fc.verify(payload, req);
      if (!verified.isValid) return res.writeHead(402).end(JSON.stringify(verified));
      const settled = await fc.settle(payload, req);
      if (!settled.success) return res.writeHead(402).end(JSON.stringify(settled));
      res.writeHead(200, { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(settled), 'content-type': 'application/json' }).end('{"thing":42}');
    })().catch((e: Error) => res.writeHead(500).end(e.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const pay = wrapFetchWithPayment(fetch, client);
    const res = await pay(`http://127.0.0.1:${(server.address() as AddressInfo).port}/thing`);
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { thing: 42 } });
    expect(decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({ success: true, network: facilitator.network });
    expect(seen).toEqual(['unpaid', 'paid']);
    expect(await token.balanceOf(req.payTo as Address)).toBe(1500n);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
