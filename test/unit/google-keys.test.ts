// Google's keys from a URL (GOOGLE_JWKS_URL's default kind; the integration test uses a file):
// fetched once and kept, an unknown kid does not refetch within jose's cooldown, and a key set
// that cannot be fetched is "unavailable" (503), not a bad token (401).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { googleKeys, GoogleKeysUnavailable } from '../../domain/accounts/google-keys.ts';
import { verifyGoogleIdToken, GoogleTokenRejected } from '../../domain/accounts/google-id-token.ts';

const CLIENT_ID = 'unit-client.apps.googleusercontent.com';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwks = JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }] });

let server: http.Server;
let fetches = 0;
let url: string;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth2/v3/certs`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const token = (kid: string, email = 'ada@example.com') => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: 'https://accounts.google.com', aud: CLIENT_ID, sub: '1', email, email_verified: true, iat: now, exp: now + 600 })
    .setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
};

test('fetched once, then served from memory; an unknown kid within the cooldown fetches nothing', async () => {
  const keys = googleKeys({ url });
  const before = fetches;
  expect(await verifyGoogleIdToken(await token('k1', 'Ada@Example.com'), keys, [CLIENT_ID])).toEqual({ email: 'ada@example.com', name: null });
  expect(await verifyGoogleIdToken(await token('k1'), keys, [CLIENT_ID])).toEqual(expect.objectContaining({ email: 'ada@example.com' }));
  await expect(verifyGoogleIdToken(await token('k2'), keys, [CLIENT_ID])).rejects.toEqual(new GoogleTokenRejected('unknown_key'));
  expect(fetches - before).toBe(1);
});

test('keys that cannot be fetched are unavailable, not a rejected token', async () => {
  const dead = http.createServer();
  await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
  const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/certs`;
  await new Promise<void>((resolve) => dead.close(() => resolve()));
  await expect(verifyGoogleIdToken(await token('k1'), googleKeys({ url: deadUrl }), [CLIENT_ID])).rejects.toBeInstanceOf(GoogleKeysUnavailable);
});

test('a key file that is missing stops the start, naming the variable', () => {
  expect(() => googleKeys({ file: '/nonexistent/google-jwks.json' })).toThrow(/GOOGLE_JWKS_URL/);
});
