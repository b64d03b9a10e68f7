// x402 payment requirements and presented payments (domain/billing/x402-*.ts): the 402 answer in
// both forms clients read, exact atomic amounts, and one digest per signature however it is encoded.
import { atomicAmount, paymentRequired, acceptsPayments, type X402Settings } from '../../domain/billing/x402-requirements.ts';
import { readPaymentHeader, MalformedPayment, canonicalJson } from '../../domain/billing/x402-payment-header.ts';
import { X402_DEFAULTS } from '../../domain/billing/x402-repository.ts';

const settings: X402Settings = { ...X402_DEFAULTS, enabled: true, payTo: '0x1111111111111111111111111111111111111111', facilitatorUrl: 'https://facilitator.example' };

test('USD prices in atomic token units: exact, rounded up when the token has fewer places', () => {
  expect(atomicAmount('0.0015', 6)).toBe('1500');
  expect(atomicAmount('0.0075', 6)).toBe('7500');
  expect(atomicAmount('0.0008', 6)).toBe('800');
  expect(atomicAmount('2', 6)).toBe('2000000');
  expect(atomicAmount('0.0015', 18)).toBe('1500000000000000');
  expect(atomicAmount('0.0015', 2)).toBe('1');
  expect(atomicAmount('0.01', 2)).toBe('1');
  expect(() => atomicAmount('-1', 6)).toThrow();
});

test('payments are taken only when switched on with a recipient and a facilitator', () => {
  expect(acceptsPayments(settings)).toBe(true);
  expect(acceptsPayments({ ...settings, enabled: false })).toBe(false);
  expect(acceptsPayments({ ...settings, payTo: null })).toBe(false);
  expect(acceptsPayments({ ...settings, facilitatorUrl: null })).toBe(false);
});

test('the 402: version 1 body with price and maxAmountRequired, version 2 in PAYMENT-REQUIRED', () => {
  const p = paymentRequired(settings, 'read_secret', 'http://127.0.0.1:1/v1/vaults/v/secrets/a', 'X-PAYMENT header is required');
  expect(p.status).toBe(402);
  expect(p.extras).toMatchObject({
    x402Version: 1, error: 'X-PAYMENT header is required',
    accepts: [{
      scheme: 'exact', network: 'eip155:8453', maxAmountRequired: '1500', price: '0.0015', payTo: settings.payTo,
      resource: 'http://127.0.0.1:1/v1/vaults/v/secrets/a', maxTimeoutSeconds: 60, mimeType: 'application/json',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', description: 'read_secret', extra: { name: 'USD Coin', version: '2' },
    }],
  });
  const v2 = JSON.parse(Buffer.from(p.headers['PAYMENT-REQUIRED']!, 'base64').toString('utf8'));
  expect(v2).toEqual({
    x402Version: 2, error: 'X-PAYMENT header is required',
    resource: { url: 'http://127.0.0.1:1/v1/vaults/v/secrets/a', description: 'read_secret', mimeType: 'application/json' },
    accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1500', asset: settings.asset, payTo: settings.payTo, maxTimeoutSeconds: 60, extra: { name: 'USD Coin', version: '2' } }],
  });
});

test('a payment header: base64 or plain JSON, the same digest for the same signed part', () => {
  const signed = { signature: '0xabc', authorization: { from: '0x1', to: '0x2', value: '1500', nonce: '0x3' } };
  const v2 = { x402Version: 2, accepted: { scheme: 'exact' }, payload: signed };
  const b64 = readPaymentHeader({ paymentSignature: Buffer.from(JSON.stringify(v2)).toString('base64') })!;
  expect(b64.version).toBe(2);
  const reordered = { x402Version: 1, scheme: 'exact', network: 'eip155:8453', payload: { authorization: { nonce: '0x3', value: '1500', to: '0x2', from: '0x1' }, signature: '0xabc' } };
  const plain = readPaymentHeader({ xPayment: JSON.stringify(reordered) })!;
  expect(plain.version).toBe(1);
  expect(plain.digest).toBe(b64.digest);
  expect(plain.digest).toMatch(/^[0-9a-f]{64}$/);
  expect(readPaymentHeader({})).toBeNull();
  expect(readPaymentHeader({ xPayment: '  ' })).toBeNull();
  for (const bad of ['not base64 !!', '{"x402Version":3,"payload":{}}', '{"x402Version":1}', Buffer.from('[1]').toString('base64'), 'x'.repeat(20_000)]) {
    expect(() => readPaymentHeader({ xPayment: bad })).toThrow(MalformedPayment);
  }
  expect(canonicalJson({ b: [2, { d: 1, c: 0 }], a: null })).toBe('{"a":null,"b":[2,{"c":0,"d":1}]}');
});
