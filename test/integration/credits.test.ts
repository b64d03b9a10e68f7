// Prepaid credits on Postgres (issue 34 §2): top-ups land once per payment, two api processes'
// credit meters never spend past the balance (nothing left leased once they stop), lots are spent
// earliest expiry first, the ledger records every change with a balance that never goes below
// zero, a dead process's lease stops counting after a minute, and x402 or expiry lend nothing. Run by credits.probe.ts (Node 24, ESM).
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { projectRoot } from '../helpers/stack.ts';

test('two processes, $0.07 of credits at $0.001 a request: exactly 70 paid of 230, earliest expiry first, all in the ledger', () => {
  const out = execFileSync('sh', [path.join(projectRoot, 'bin', 'node24'), path.join(projectRoot, 'test/integration/credits.probe.ts')], {
    cwd: projectRoot, env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL! },
  });
  expect(JSON.parse(out.toString())).toEqual({
    topups: [true, true, false],
    afterThirty: { paid: 30, lots: [['pay_late', 40_000], ['pay_soon', 0]] }, // $0.02 expiring first, then $0.01 of the later lot
    paid: 70,
    lots: [['pay_late', 0], ['pay_soon', 0]],
    spendable: 0,
    leased: 0,
    usage: { used: 70, paid: 70, paidMicros: 70_000 },
    ledger: { total: expect.any(Number), topups: [20_000, 50_000], usageSum: -70_000, lastBalance: 0, neverNegative: true },
    stranded: { whileLive: { granted: 0, unleased: 0 }, afterDeath: { granted: 5_000, unleased: 0 } },
    underX402: null,
    afterExpiry: { balanceMicros: 0, expiringMicros: 0, earliestExpiry: null },
  });
}, 120_000);
