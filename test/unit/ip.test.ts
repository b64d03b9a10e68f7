// Property tests for the input parsers of the IP filter: addresses, CIDR blocks, X-Forwarded-For.
import fc from 'fast-check';
import { normalizeIp, parseCidr, formatCidr, cidrContains } from '../../domain/net/ip.ts';
import { clientIp } from '../../domain/net/client-ip.ts';

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
const ipv4Int = (ip: string) => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);

describe('normalizeIp', () => {
  test('IPv4 is returned as is; its IPv4-mapped IPv6 form normalizes to it', () => {
    fc.assert(fc.property(ipv4, (ip) => {
      expect(normalizeIp(ip)).toBe(ip);
      expect(normalizeIp(`::ffff:${ip}`)).toBe(ip);
      expect(normalizeIp(`[::ffff:${ip}]`)).toBe(ip);
    }));
  });

  test('IPv6 is canonicalized and zone ids are dropped', () => {
    expect(normalizeIp('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(normalizeIp('fe80::1%eth0')).toBe('fe80::1');
  });

  test('odd spellings and garbage are refused, never guessed', () => {
    for (const bad of ['127.1', '0x7f.0.0.1', '2130706433', '1.2.3', '256.1.1.1', '', 'localhost', '1.2.3.4.5', ':::']) {
      expect(normalizeIp(bad)).toBeNull();
    }
  });

  test('arbitrary strings never throw', () => {
    fc.assert(fc.property(fc.string(), (s) => { normalizeIp(s); }));
  });
});

describe('parseCidr', () => {
  test('an IPv4 block contains exactly the addresses that share its prefix', () => {
    fc.assert(fc.property(ipv4, fc.integer({ min: 0, max: 32 }), ipv4, (base, prefix, probe) => {
      const c = parseCidr(`${base}/${prefix}`);
      expect(c).not.toBeNull();
      const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
      const expected = ((ipv4Int(base) & mask) >>> 0) === ((ipv4Int(probe) & mask) >>> 0);
      expect(cidrContains(c!, probe)).toBe(expected);
    }));
  });

  test('formatting clears host bits and round-trips', () => {
    fc.assert(fc.property(ipv4, fc.integer({ min: 0, max: 32 }), (base, prefix) => {
      const text = formatCidr(parseCidr(`${base}/${prefix}`)!);
      expect(formatCidr(parseCidr(text)!)).toBe(text);
    }));
    expect(formatCidr(parseCidr('10.1.2.3/8')!)).toBe('10.0.0.0/8');
    expect(formatCidr(parseCidr('2001:db8::1/32')!)).toBe('2001:db8::/32');
    expect(formatCidr(parseCidr('::ffff:10.0.0.0/104')!)).toBe('10.0.0.0/8');
  });

  test('a bare address is a single-host block', () => {
    expect(formatCidr(parseCidr('192.0.2.7')!)).toBe('192.0.2.7/32');
    expect(formatCidr(parseCidr('::1')!)).toBe('::1/128');
  });

  test('invalid blocks are refused', () => {
    for (const bad of ['10.0.0.0/33', '::/129', '1.2.3.4/-1', '1.2.3.4/', '1.2.3.4/08x', '300.1.1.1/8', '127.1/8', 'abc', '', '/8', '1.2.3.4/8/8', 'fe80::1%eth0/64']) {
      expect(parseCidr(bad)).toBeNull();
    }
  });

  test('IPv6 blocks do not match IPv4 addresses and vice versa', () => {
    expect(cidrContains(parseCidr('::/0')!, '1.2.3.4')).toBe(false);
    expect(cidrContains(parseCidr('0.0.0.0/0')!, '2001:db8::1')).toBe(false);
    expect(cidrContains(parseCidr('0.0.0.0/0')!, '::ffff:1.2.3.4')).toBe(true);
  });
});

describe('clientIp', () => {
  test('without trusted proxies the socket address wins, whatever X-Forwarded-For says', () => {
    fc.assert(fc.property(ipv4, fc.array(ipv4), (peer, chain) => {
      expect(clientIp(`::ffff:${peer}`, chain.join(', '), 0)).toBe(peer);
    }));
  });

  test('with N trusted hops the N-th entry from the right is the client', () => {
    fc.assert(fc.property(ipv4, fc.array(ipv4, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 6 }), (peer, chain, hops) => {
      const expected = hops <= chain.length ? chain[chain.length - hops] : chain[0];
      expect(clientIp(peer, chain.join(', '), hops)).toBe(expected);
    }));
  });

  test('a spoofed left-most entry never wins with one trusted hop', () => {
    expect(clientIp('10.0.0.1', '1.2.3.4, 198.51.100.9', 1)).toBe('198.51.100.9');
  });

  test('an unparsable forwarded entry falls back to the socket address', () => {
    expect(clientIp('10.0.0.1', 'garbage', 1)).toBe('10.0.0.1');
    expect(clientIp('10.0.0.1', ['198.51.100.1', '203.0.113.5'], 1)).toBe('203.0.113.5');
  });
});
