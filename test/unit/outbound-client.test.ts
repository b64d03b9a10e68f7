// The SSRF-safe outbound client against real local servers on 127.0.0.1 (exempted through the
// client's options, never through process env) and an injected resolver playing DNS.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createOutboundClient, parseExemptions, type Resolver } from '../../domain/net/outbound/index.ts';

const LOCAL = parseExemptions(['127.0.0.0/8']);

type Seen = { method?: string; url?: string; host?: string; body: string; headers: http.IncomingHttpHeaders };
const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();

async function listen<S extends net.Server>(server: S): Promise<number> {
  servers.push(server);
  server.on('connection', (s: net.Socket) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** An HTTP server that records requests and answers with `handler`. */
async function recordingServer(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: Seen[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, host: req.headers.host, body, headers: req.headers });
      handler(req, res);
    });
  });
  server.on('connection', () => { connections += 1; });
  const port = await listen(server);
  return { port, seen, connections: () => connections };
}

/** A resolver that answers from a script, one answer per call, and counts its calls. */
function scriptedResolver(...answers: string[][]) {
  const calls: string[] = [];
  const resolver: Resolver = async (hostname) => {
    calls.push(hostname);
    const a = answers[Math.min(calls.length - 1, answers.length - 1)];
    return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolver, calls };
}

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

describe('outbound client', () => {
  test('a 200 is delivered, to the checked address, with the original Host and the body', async () => {
    const srv = await recordingServer((_req, res) => { res.setHeader('x-reply', 'yes'); res.end('hello'); });
    const dns = scriptedResolver(['127.0.0.1'], ['169.254.169.254']);
    const client = createOutboundClient({ exemptions: LOCAL, resolver: dns.resolver });
    const result = await client.send({
      method: 'POST', url: `http://hooks.example.com:${srv.port}/in?x=1`, allowHttp: true,
      headers: { 'content-type': 'application/json', Host: 'evil.example' }, body: '{"a":1}',
    });
    expect(result).toMatchObject({ ok: true, status: 200, address: '127.0.0.1' });
    expect(result.ok && result.body.toString()).toBe('hello');
    expect(result.ok && result.headers['x-reply']).toBe('yes');
    expect(srv.seen).toEqual([expect.objectContaining({
      method: 'POST', url: '/in?x=1', host: `hooks.example.com:${srv.port}`, body: '{"a":1}',
    })]);
    // One lookup only: the rebinding answer the resolver had ready is never asked for.
    expect(dns.calls).toEqual(['hooks.example.com']);
  });

  test('an IP-literal URL is never resolved', async () => {
    const srv = await recordingServer((_req, res) => res.end('ok'));
    const dns = scriptedResolver(['127.0.0.1']);
    const client = createOutboundClient({ exemptions: LOCAL, resolver: dns.resolver });
    const result = await client.send({ method: 'GET', url: `http://127.0.0.1:${srv.port}/` });
    expect(result.ok).toBe(true);
    expect(dns.calls).toEqual([]);
  });

  test('a redirect is a failure and is not followed', async () => {
    const target = await recordingServer((_req, res) => res.end('should not be reached'));
    const redirector = await recordingServer((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/` }).end();
    });
    const client = createOutboundClient({ exemptions: LOCAL });
    const result = await client.send({ method: 'POST', url: `http://127.0.0.1:${redirector.port}/`, body: 'x' });
    expect(result).toMatchObject({ ok: false, kind: 'redirect', status: 302 });
    expect(redirector.seen).toHaveLength(1);
    expect(target.seen).toHaveLength(0);
    expect(target.connections()).toBe(0);
  });

  test.each([
    ['one public and one private answer', [['93.184.215.14', '127.0.0.1']]],
    ['a private answer after a public one', [['2606:4700::1111', '10.0.0.1']]],
    ['the metadata address', [['169.254.169.254']]],
    ['an IPv4-mapped loopback', [['::ffff:127.0.0.1']]],
    ['a NAT64 address embedding loopback', [['64:ff9b::7f00:1']]],
    ['something that is not an address', [['not-an-ip']]],
  ])('DNS answering %s is refused and nothing connects', async (_name, answers) => {
    const srv = await recordingServer((_req, res) => res.end('no'));
    const dns = scriptedResolver(...answers);
    // No exemptions here: 127.0.0.1 is as private as it is in production.
    const client = createOutboundClient({ resolver: dns.resolver });
    const result = await client.send({ method: 'GET', url: `https://hooks.example.com:${srv.port}/` });
    expect(result).toMatchObject({ ok: false, kind: 'refused' });
    expect(dns.calls).toHaveLength(1);
    expect(srv.connections()).toBe(0);
  });

  test('with an exemption, every answer must still pass: one exempt and one private is refused', async () => {
    const srv = await recordingServer((_req, res) => res.end('no'));
    const dns = scriptedResolver(['127.0.0.1', '10.1.2.3']);
    const client = createOutboundClient({ exemptions: LOCAL, resolver: dns.resolver });
    const result = await client.send({ method: 'GET', url: `http://hooks.example.com:${srv.port}/`, allowHttp: true });
    expect(result).toMatchObject({ ok: false, kind: 'refused' });
    expect(!result.ok && result.message).toMatch(/10\.1\.2\.3/);
    expect(srv.connections()).toBe(0);
  });

  test('a DNS failure is typed', async () => {
    const resolver: Resolver = async () => { throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' }); };
    const client = createOutboundClient({ resolver });
    const result = await client.send({ method: 'GET', url: 'https://hooks.example.com/' });
    expect(result).toMatchObject({ ok: false, kind: 'dns', message: expect.stringMatching(/ENOTFOUND/) });
  });

  test('https connects to the checked address while SNI and certificate checks use the name', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbound-tls-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=hooks.example.com', '-addext', 'subjectAltName=DNS:hooks.example.com',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    const key = fs.readFileSync(path.join(dir, 'key.pem'));
    const cert = fs.readFileSync(path.join(dir, 'cert.pem'));
    fs.rmSync(dir, { recursive: true, force: true });
    const sni: string[] = [];
    const server = https.createServer({
      key, cert,
      SNICallback: (name, cb) => { sni.push(name); cb(null, tls.createSecureContext({ key, cert })); },
    }, (_req, res) => res.end('tls'));
    const port = await listen(server);
    const dns = scriptedResolver(['127.0.0.1']);
    const client = createOutboundClient({ exemptions: LOCAL, resolver: dns.resolver });
    const result = await client.send({ method: 'GET', url: `https://hooks.example.com:${port}/` });
    // The self-signed certificate is not trusted: verification is on, and it failed on the name's cert.
    expect(result).toMatchObject({ ok: false, kind: 'network', address: '127.0.0.1' });
    expect(!result.ok && result.message).toMatch(/self.signed|certificate/i);
    expect(sni).toEqual(['hooks.example.com']);
  });

  test('connect timeout: a TLS peer that never completes the handshake', async () => {
    const silent = net.createServer(() => { /* accept, say nothing */ });
    const port = await listen(silent);
    const client = createOutboundClient({ exemptions: LOCAL });
    const result = await client.send({ method: 'GET', url: `https://127.0.0.1:${port}/`, connectTimeoutMs: 200, timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: false, kind: 'connect_timeout' });
    expect(!result.ok && result.durationMs).toBeGreaterThanOrEqual(190);
    expect(!result.ok && result.durationMs).toBeLessThan(2000);
  });

  test('total timeout: a server that never answers, and one that never finishes the body', async () => {
    const mute = await recordingServer(() => { /* never respond */ });
    const trickle = await recordingServer((_req, res) => { res.writeHead(200); res.write('partial'); });
    const client = createOutboundClient({ exemptions: LOCAL });
    for (const port of [mute.port, trickle.port]) {
      const result = await client.send({ method: 'GET', url: `http://127.0.0.1:${port}/`, timeoutMs: 300 });
      expect(result).toMatchObject({ ok: false, kind: 'timeout' });
      expect(!result.ok && result.durationMs).toBeGreaterThanOrEqual(290);
      expect(!result.ok && result.durationMs).toBeLessThan(2000);
    }
  });

  test('a response over the size bound fails, declared or streamed', async () => {
    const declared = await recordingServer((_req, res) => res.end('x'.repeat(5000)));
    let stillWriting = true;
    const streamed = await recordingServer((_req, res) => {
      res.writeHead(200); // chunked, no length: the client must count
      const tick = () => { if (stillWriting && !res.destroyed) { res.write('y'.repeat(1000)); setImmediate(tick); } };
      tick();
    });
    const client = createOutboundClient({ exemptions: LOCAL });
    for (const port of [declared.port, streamed.port]) {
      const result = await client.send({ method: 'GET', url: `http://127.0.0.1:${port}/`, maxResponseBytes: 1024, timeoutMs: 3000 });
      expect(result).toMatchObject({ ok: false, kind: 'too_large', status: 200 });
    }
    stillWriting = false;
    const fits = await client.send({ method: 'GET', url: `http://127.0.0.1:${declared.port}/`, maxResponseBytes: 5000 });
    expect(fits.ok && fits.body.length).toBe(5000);
  });

  test('http is refused unless allowed (or an exempted IP literal); the resolver is not consulted', async () => {
    const dns = scriptedResolver(['127.0.0.1']);
    const client = createOutboundClient({ exemptions: LOCAL, resolver: dns.resolver });
    const result = await client.send({ method: 'GET', url: 'http://hooks.example.com/' });
    expect(result).toMatchObject({ ok: false, kind: 'refused', message: expect.stringMatching(/https is required/) });
    const noExemption = createOutboundClient({ resolver: dns.resolver });
    expect(await noExemption.send({ method: 'GET', url: 'http://127.0.0.1:9/', allowHttp: true }))
      .toMatchObject({ ok: false, kind: 'refused' });
    expect(dns.calls).toEqual([]);
  });

  test.each([
    'https://user:pass@hooks.example.com/',
    'https://hooks.example.com\\@127.0.0.1/',
    'https://metadata.google.internal/',
    'https://metadata.google.internal./',
    'https://printer.LOCAL/',
    'https://printer.local./',
  ])('%s is refused before any lookup', async (url) => {
    const dns = scriptedResolver(['127.0.0.1']);
    const client = createOutboundClient({ exemptions: LOCAL, resolver: dns.resolver });
    expect(await client.send({ method: 'GET', url })).toMatchObject({ ok: false, kind: 'refused' });
    expect(dns.calls).toEqual([]);
  });

  test('proxy variables in the environment are ignored', async () => {
    const proxy = await recordingServer((_req, res) => res.end('proxied'));
    const srv = await recordingServer((_req, res) => res.end('direct'));
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    process.env.HTTP_PROXY = process.env.http_proxy = `http://127.0.0.1:${proxy.port}`;
    try {
      const client = createOutboundClient({ exemptions: LOCAL });
      const result = await client.send({ method: 'GET', url: `http://127.0.0.1:${srv.port}/` });
      expect(result.ok && result.body.toString()).toBe('direct');
      expect(proxy.connections()).toBe(0);
    } finally {
      for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
    }
  });
});
