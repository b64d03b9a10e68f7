import path from 'node:path';
import { loadConfig, ConfigError } from '../../domain/config.ts';

describe('configuration', () => {
  test('defaults apply', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.rateLimit).toEqual({ ratePerSecond: 100, burst: 200, store: { kind: 'postgres', redisUrl: undefined } });
    expect(c.trustProxyHops).toBe(0);
    expect(c.outboundAllowCidrs).toEqual([]);
  });

  test('RATE_LIMIT_STORE: redis when REDIS_URL is set, else postgres; redis needs REDIS_URL', () => {
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379' }).rateLimit.store).toEqual({ kind: 'redis', redisUrl: 'redis://cache:6379' });
    expect(loadConfig({ REDIS_URL: 'rediss://u:p@cache:6380/2', RATE_LIMIT_STORE: 'postgres' }).rateLimit.store.kind).toBe('postgres');
    expect(loadConfig({ RATE_LIMIT_STORE: 'memory' }).rateLimit.store).toEqual({ kind: 'memory', redisUrl: undefined });
    expect(() => loadConfig({ RATE_LIMIT_STORE: 'redis' })).toThrow(/RATE_LIMIT_STORE=redis needs REDIS_URL/);
    expect(() => loadConfig({ RATE_LIMIT_STORE: 'memcached' })).toThrow(/RATE_LIMIT_STORE: must be memory, postgres or redis/);
    expect(() => loadConfig({ REDIS_URL: 'http://cache:6379' })).toThrow(/REDIS_URL/);
  });

  test('OUTBOUND_ALLOW_CIDRS is a comma-separated list of CIDRs', () => {
    expect(loadConfig({ OUTBOUND_ALLOW_CIDRS: ' 127.0.0.0/8, ::1/128 ,10.1.2.3' }).outboundAllowCidrs)
      .toEqual(['127.0.0.0/8', '::1/128', '10.1.2.3']);
    expect(() => loadConfig({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8,localhost' })).toThrow(/OUTBOUND_ALLOW_CIDRS.*localhost/);
    expect(() => loadConfig({ OUTBOUND_ALLOW_CIDRS: '10.0.0.0/33' })).toThrow(/OUTBOUND_ALLOW_CIDRS/);
    expect(() => loadConfig({ OUTBOUND_ALLOW_CIDRS: '127.1/8' })).toThrow(/OUTBOUND_ALLOW_CIDRS/);
  });

  test('a wrong value is named', () => {
    expect(() => loadConfig({ RATE_LIMIT_RPS: 'abc' })).toThrow(/RATE_LIMIT_RPS/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ ROOT_KEY: 'c2hvcnQ=' })).toThrow(/ROOT_KEY/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(ConfigError);
  });

  test('TEMPORAL_UI_PORT: 8233 unless set; the codec CORS origins follow it unless TEMPORAL_UI_ORIGINS is set', () => {
    const d = loadConfig({});
    expect(d.temporalUiPort).toBe(8233);
    expect(d.temporalUiOrigins).toEqual(['http://localhost:8233', 'http://127.0.0.1:8233']);
    const c = loadConfig({ TEMPORAL_UI_PORT: '9000' });
    expect(c.temporalUiPort).toBe(9000);
    expect(c.temporalUiOrigins).toEqual(['http://localhost:9000', 'http://127.0.0.1:9000']);
    expect(() => loadConfig({ TEMPORAL_UI_PORT: '0' })).toThrow(/TEMPORAL_UI_PORT/);
    expect(() => loadConfig({ TEMPORAL_UI_PORT: 'http' })).toThrow(/TEMPORAL_UI_PORT/);
  });

  test('WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS default from PUBLIC_URL (else localhost:PORT); origins are exact', () => {
    expect(loadConfig({ PORT: '9000' }).webauthn).toEqual({ rpId: 'localhost', origins: ['http://localhost:9000'] });
    expect(loadConfig({ PUBLIC_URL: 'https://vault.example.com:8443/api/' }).webauthn).toEqual({ rpId: 'vault.example.com', origins: ['https://vault.example.com:8443'] });
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com', WEBAUTHN_RP_ID: 'Example.com', WEBAUTHN_ORIGINS: 'https://example.com, https://App.example.com' }).webauthn)
      .toEqual({ rpId: 'example.com', origins: ['https://example.com', 'https://app.example.com'] });
    for (const bad of ['https://example.com', 'example.com:443', 'example.com/path']) {
      expect(() => loadConfig({ WEBAUTHN_RP_ID: bad })).toThrow(/WEBAUTHN_RP_ID/);
    }
    expect(() => loadConfig({ WEBAUTHN_ORIGINS: 'https://example.com/login' })).toThrow(/WEBAUTHN_ORIGINS/);
  });

  test('DASHBOARD_PREFIX: off unless set; a path that starts with / and cannot shadow /v1', () => {
    expect(loadConfig({}).dashboardPrefix).toBeNull();
    expect(loadConfig({ DASHBOARD_PREFIX: '' }).dashboardPrefix).toBeNull();
    expect(loadConfig({ DASHBOARD_PREFIX: '/api' }).dashboardPrefix).toBe('/api');
    expect(loadConfig({ DASHBOARD_PREFIX: '/dash/v2.api' }).dashboardPrefix).toBe('/dash/v2.api');
    for (const bad of ['api', '/api/', '/', '//api', '/a//b', '/v1', '/V1', '/v1/api', '/a/../b', '/./a', '/a b', '/a?b', '/a%2Fb', 'https://x/api']) {
      expect(() => loadConfig({ DASHBOARD_PREFIX: bad })).toThrow(/DASHBOARD_PREFIX/);
    }
  });

  test('TEMPORAL_UI_ORIGINS is a comma-separated list of exact origins', () => {
    expect(loadConfig({ TEMPORAL_UI_ORIGINS: ' https://Temporal.example.com , http://[::1]:8233' }).temporalUiOrigins)
      .toEqual(['https://temporal.example.com', 'http://[::1]:8233']);
    for (const bad of ['*', 'https://ui.example.com/', 'https://ui.example.com/path', 'ftp://x.example', 'localhost:8233', 'https://u:p@x.example']) {
      expect(() => loadConfig({ TEMPORAL_UI_ORIGINS: bad })).toThrow(/TEMPORAL_UI_ORIGINS/);
    }
  });

  test('PLATFORM_ADMIN_EMAILS: comma-separated, trimmed, lower-cased; none by default', () => {
    expect(loadConfig({}).platformAdminEmails).toEqual([]);
    expect(loadConfig({ PLATFORM_ADMIN_EMAILS: ' Ops@Example.com,, second@example.org , ops@example.com' }).platformAdminEmails)
      .toEqual(['ops@example.com', 'second@example.org']);
    expect(() => loadConfig({ PLATFORM_ADMIN_EMAILS: 'ops@example.com,not-an-address' })).toThrow(/PLATFORM_ADMIN_EMAILS.*not-an-address/);
  });

  test('CHAIN_RPC_URLS: name=url pairs pinning chains\' rpc_url; none by default; errors never repeat a URL', () => {
    expect(loadConfig({}).chainRpcUrls.size).toBe(0);
    const pins = loadConfig({ CHAIN_RPC_URLS: ' Ethereum = https://eth-mainnet.g.alchemy.com/v2/KEY123 ,, base-sepolia=http://10.0.0.5:8545 ' }).chainRpcUrls;
    expect([...pins]).toEqual([['ethereum', 'https://eth-mainnet.g.alchemy.com/v2/KEY123'], ['base-sepolia', 'http://10.0.0.5:8545']]);
    // `constructor` is only a name: the pins are a Map, not an object's prototype chain.
    expect(loadConfig({ CHAIN_RPC_URLS: 'constructor=https://rpc.example.com' }).chainRpcUrls.get('constructor')).toBe('https://rpc.example.com');
    for (const bad of ['ethereum', '=https://x.example', 'ethereum=ftp://x.example', 'ethereum=wss://x.example', 'ethereum=not a url',
      '1=https://x.example', 'eth_mainnet=https://x.example', 'a=https://x.example,a=https://y.example']) {
      expect(() => loadConfig({ CHAIN_RPC_URLS: bad })).toThrow(/CHAIN_RPC_URLS/);
    }
    try {
      loadConfig({ CHAIN_RPC_URLS: 'ethereum=ftp://user:s3cret@x.example/v2/KEYKEYKEY' });
      throw new Error('expected a ConfigError');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as Error).message).toMatch(/CHAIN_RPC_URLS: the URL for "ethereum" must be an absolute http or https URL/);
      expect((e as Error).message).not.toMatch(/s3cret|KEYKEYKEY/);
    }
  });

  test('GOOGLE_CLIENT_IDS: Google sign-in is off (null) unless set; a comma list, trimmed, deduplicated', () => {
    expect(loadConfig({}).google).toBeNull();
    expect(loadConfig({ GOOGLE_CLIENT_IDS: '' }).google).toBeNull();
    const c = loadConfig({ GOOGLE_CLIENT_IDS: ' 1-web.apps.googleusercontent.com ,, 2-ios.apps.googleusercontent.com,1-web.apps.googleusercontent.com' });
    expect(c.google).toEqual({
      clientIds: ['1-web.apps.googleusercontent.com', '2-ios.apps.googleusercontent.com'],
      jwks: { url: 'https://www.googleapis.com/oauth2/v3/certs' },
    });
    for (const bad of [',', ' , ', 'one id,two words']) expect(() => loadConfig({ GOOGLE_CLIENT_IDS: bad })).toThrow(/GOOGLE_CLIENT_IDS/);
  });

  test('GOOGLE_JWKS_URL: an http(s) URL or a file path (made absolute); it needs GOOGLE_CLIENT_IDS', () => {
    const ids = { GOOGLE_CLIENT_IDS: 'web-client' };
    expect(loadConfig({ ...ids, GOOGLE_JWKS_URL: 'http://127.0.0.1:9999/certs' }).google?.jwks).toEqual({ url: 'http://127.0.0.1:9999/certs' });
    expect(loadConfig({ ...ids, GOOGLE_JWKS_URL: '/etc/vault/google-jwks.json' }).google?.jwks).toEqual({ file: '/etc/vault/google-jwks.json' });
    expect(loadConfig({ ...ids, GOOGLE_JWKS_URL: 'keys/google.json' }).google?.jwks).toEqual({ file: path.resolve('keys/google.json') });
    for (const bad of ['ftp://example.com/certs', 'file:///etc/jwks.json', 'https://']) {
      expect(() => loadConfig({ ...ids, GOOGLE_JWKS_URL: bad })).toThrow(/GOOGLE_JWKS_URL/);
    }
    expect(() => loadConfig({ GOOGLE_JWKS_URL: '/etc/vault/google-jwks.json' })).toThrow(/GOOGLE_JWKS_URL needs GOOGLE_CLIENT_IDS/);
  });

  test('a missing required variable is named', () => {
    expect(() => loadConfig({}, ['DATABASE_URL', 'TEMPORAL_ADDRESS'])).toThrow(/DATABASE_URL, TEMPORAL_ADDRESS/);
  });
});
