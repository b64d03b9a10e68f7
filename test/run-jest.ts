// npm test's jest step: every suite once, in band, against one shared stack. If at most
// MAX_RERUN test files fail, those files run once more on their own (a fresh stack) and decide
// the result; every first-run failure stays in the log under a FAILED ONCE banner.
//
// Why: the VMs this runs on (nested virtualization) now and then hand a process back with its x87
// FPU registers marked full. The next floating-point remainder in that process then yields NaN:
// pg wrote a timestamp "+00:NaN", base-x a zero digit into an XRP address, otplib a TOTP code of
// "000NaN" (each once, in a different suite each time). Setting the same state from a native
// addon reproduces the NaN exactly; a probe of the tag word in the jest process caught it flipping
// (to what an MMX instruction leaves) although no library loaded there contains one. No code of
// ours can prevent it. A real failure
// fails the rerun too; more than MAX_RERUN failing files is never a platform fault.
// Usage: node run-jest.ts [jest arguments…] (the rerun takes the failed files alone; the environment stays)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MAX_RERUN = 3;
const jest = [path.join('node_modules', 'jest', 'bin', 'jest.js'), '--runInBand', '--forceExit'];

type Report = { testResults?: { name: string; status: string }[] };

/** Runs jest with `args`; its exit status and the files that failed (null: no report, e.g. jest or a global setup failed to start). */
function runJest(args: string[], tag: string): { status: number | null; failed: string[] | null } {
  const report = path.join(os.tmpdir(), `jest-report-${process.pid}-${tag}.json`);
  const run = spawnSync(process.execPath, [...jest, ...args, '--json', '--outputFile', report], { stdio: 'inherit' });
  try {
    const results = (JSON.parse(fs.readFileSync(report, 'utf8')) as Report).testResults ?? [];
    return { status: run.status, failed: results.filter((t) => t.status === 'failed').map((t) => path.relative(process.cwd(), t.name)) };
  } catch {
    return { status: run.status, failed: null };
  } finally {
    fs.rmSync(report, { force: true });
  }
}

const first = runJest(process.argv.slice(2), 'first');
if (first.status === 0) process.exit(0);
const files = first.failed ?? [];
if (files.length === 0 || files.length > MAX_RERUN) process.exit(first.status ?? 1);

const banner = '='.repeat(100);
console.error(`\n${banner}\nFAILED ONCE — running these ${files.length} file(s) again on a fresh stack (test/run-jest.ts says why):\n  ${files.join('\n  ')}\n${banner}\n`);
const second = runJest(files, 'rerun');
const again = second.failed ?? files;
const passed = files.filter((f) => !again.includes(f));
console.error(`\n${banner}\n${second.status === 0 ? `PASSED ON THE RERUN: ${files.join(', ')}`
  : `FAILED AGAIN: ${again.join(', ') || '(no report: see the output above)'}${passed.length ? `; passed on the rerun: ${passed.join(', ')}` : ''}`}\n${banner}\n`);
process.exit(second.status ?? 1);
