// How a delivery is signed (domain/webhooks/signature.ts): one secret, or during an in-place
// rotation's overlap the old one on X-Webhook-Signature and the new one on X-Webhook-Signature-Next,
// with both in Standard Webhooks' webhook-signature (new first).
import { signBodyHex, signedHeaders, standardWebhookSignature, verifyBodyHex } from '../../domain/webhooks/signature.ts';
import { generateWebhookSecret } from '../../domain/webhooks/webhook-secret.ts';

const body = JSON.stringify({ id: 'evt', type: 'platform.user.connected', data: { platform_app_id: 'a' } });
const at = 1_700_000_000;

test('one secret: both schemes with it, no -Next header', () => {
  const secret = generateWebhookSecret();
  const h = signedHeaders({ current: secret, previous: null }, 'evt', at, body);
  expect(h).toEqual({
    'x-webhook-signature': signBodyHex(secret, body), 'x-1claw-signature': signBodyHex(secret, body),
    'webhook-id': 'evt', 'webhook-timestamp': String(at), 'webhook-signature': standardWebhookSignature(secret, 'evt', at, body),
  });
  expect(verifyBodyHex(secret, body, h['x-webhook-signature']!)).toBe(true);
});

test('during an overlap: the old secret keeps X-Webhook-Signature, the new one signs -Next, both in webhook-signature', () => {
  const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
  const h = signedHeaders({ current: newSecret, previous: oldSecret }, 'evt', at, body);
  expect(verifyBodyHex(oldSecret, body, h['x-webhook-signature']!)).toBe(true);
  expect(h['x-1claw-signature']).toBe(h['x-webhook-signature']);
  expect(verifyBodyHex(newSecret, body, h['x-webhook-signature-next']!)).toBe(true);
  expect(verifyBodyHex(newSecret, body, h['x-webhook-signature']!)).toBe(false);
  expect(h['webhook-signature']!.split(' ')).toEqual([
    standardWebhookSignature(newSecret, 'evt', at, body), standardWebhookSignature(oldSecret, 'evt', at, body),
  ]);
});
