import { loadConfig, ConfigError } from '../../domain/config.ts';

describe('configuration', () => {
  test('defaults apply', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.rateLimit).toEqual({ ratePerSecond: 100, burst: 200 });
    expect(c.trustProxyHops).toBe(0);
    expect(c.outboundAllowCidrs).toEqual([]);
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

  test('a missing required variable is named', () => {
    expect(() => loadConfig({}, ['DATABASE_URL', 'TEMPORAL_ADDRESS'])).toThrow(/DATABASE_URL, TEMPORAL_ADDRESS/);
  });
});
