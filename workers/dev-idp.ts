// A local OIDC identity provider for trying the platform API (docs/platform.md): what an app's own
// IdP does for users/upsert, on 127.0.0.1, with a key pair kept in a directory of your choice.
//   sh bin/node24 workers/dev-idp.ts serve <dir>     serves <dir>'s public key as a JWKS at
//                                                    http://127.0.0.1:<port>/jwks.json and writes
//                                                    that URL to <dir>/jwks-url; runs until stopped
//   sh bin/node24 workers/dev-idp.ts token <dir> <issuer> <audience> <subject> <email>
//                                                    prints an ES256 id token (5 minutes) for them
// Never for production: the private key sits in <dir> unencrypted.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

const KID = 'dev-idp-1';

async function keyPair(dir: string): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  const file = path.join(dir, 'key.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as { privateJwk: JWK; publicJwk: JWK };
  const pair = await generateKeyPair('ES256', { extractable: true });
  const made = { privateJwk: await exportJWK(pair.privateKey), publicJwk: { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'ES256', use: 'sig' } };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(made), { mode: 0o600 });
  return made;
}

async function serve(dir: string): Promise<void> {
  const { publicJwk } = await keyPair(dir);
  const body = JSON.stringify({ keys: [publicJwk] });
  const server = http.createServer((req, res) => {
    if (req.url !== '/jwks.json') { res.statusCode = 404; res.end(); return; }
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  fs.writeFileSync(path.join(dir, 'jwks-url'), url);
  process.stderr.write(`[dev-idp] JWKS at ${url}\n`);
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => server.close(() => process.exit(0)));
}

async function token(dir: string, issuer: string, audience: string, subject: string, email: string): Promise<void> {
  const { privateJwk } = await keyPair(dir);
  const key = await importJWK(privateJwk, 'ES256');
  const jwt = await new SignJWT({ email, email_verified: true }).setProtectedHeader({ alg: 'ES256', kid: KID })
    .setIssuer(issuer).setAudience(audience).setSubject(subject).setIssuedAt().setExpirationTime('5m').sign(key);
  process.stdout.write(`${jwt}\n`);
}

const [command, ...args] = process.argv.slice(2);
if (command === 'serve' && args.length === 1) await serve(args[0]!);
else if (command === 'token' && args.length === 5) await token(args[0]!, args[1]!, args[2]!, args[3]!, args[4]!);
else {
  process.stderr.write('usage: dev-idp.ts serve <dir> | token <dir> <issuer> <audience> <subject> <email>\n');
  process.exit(2);
}
