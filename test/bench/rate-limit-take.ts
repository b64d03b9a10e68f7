// What the global rate limit costs a request on the hot path (issue 30 §1): `take()` of the
// LeasedLimiter, 16 requests between two awaits (as 16 connections would), over a store whose
// answers land before the next batch (so this is the CPU of the limiter, not the store's latency;
// the HTTP bench measures that). Run: sh bin/node24 test/bench/rate-limit-take.ts
import { LeasedLimiter, type LeaseSource } from '../../domain/ratelimit/leased-limiter.ts';

const LEASE = 100; // the global limit's lease with the bench's RATE_LIMIT_BURST (batchedLeaseSize)
let leases = 0;
const store: LeaseSource = async (_key, size) => {
  leases++;
  return { granted: size, msLeft: 60_000, fresh: false };
};

async function run(keys: number, requests: number): Promise<void> {
  const l = new LeasedLimiter({ leaseSize: LEASE, lease: store });
  const ips = Array.from({ length: keys }, (_x, i) => `10.0.${i >> 8}.${i & 255}`);
  leases = 0;
  let waited = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < requests; i++) {
    const r = l.take(ips[i % keys]!);
    if (typeof r !== 'number') { waited++; await r; }
    if (i % 16 === 15) await null;
  }
  const ns = Number(process.hrtime.bigint() - started) / requests;
  l.close();
  process.stdout.write(`| ${keys} | ${requests} | ${ns.toFixed(0)} | ${waited} | ${leases} |\n`);
}

process.stdout.write('| client addresses | requests | ns per request | requests that waited for a lease | leases |\n| ---: | ---: | ---: | ---: | ---: |\n');
for (const keys of [1, 1000]) await run(keys, 2_000_000);
