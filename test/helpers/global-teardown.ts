import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { stopGroup } from './stack.ts';
import { coverageFile, uncoveredReferenceOperations } from './response-check.ts';

type GlobalConfig = { testPathPatterns?: { patterns?: string[] } };

export default async function globalTeardown(globalConfig: GlobalConfig): Promise<void> {
  const g = globalThis as { __stack?: { child: ChildProcess; smtp: { close: () => Promise<void> }; swaps: { stop: () => Promise<void> }; ai?: { stop: () => Promise<void> }; stripe?: { stop: () => Promise<void> } } };
  if (!g.__stack) return;
  // The 1Claw contract (issue 8 §5): after a full run, every operation we implement that the
  // reference describes must have had a success answer checked against the reference's schema.
  let uncovered: string[] = [];
  if ((globalConfig.testPathPatterns?.patterns ?? []).length === 0) {
    const ours = await (await fetch(`${process.env.TEST_API_URL}/v1/openapi.json`)).json();
    const covered = new Set(fs.existsSync(coverageFile()) ? fs.readFileSync(coverageFile(), 'utf8').split('\n').filter(Boolean) : []);
    uncovered = uncoveredReferenceOperations(ours, covered);
  }
  await stopGroup(g.__stack.child);
  await g.__stack.smtp.close();
  await g.__stack.swaps.stop();
  await g.__stack.ai?.stop();
  await g.__stack.stripe?.stop();
  const dir = process.env.TEST_DATA_DIR;
  if (dir) printStackErrors(`${dir}/stack.log`);
  if (dir && process.env.KEEP_TEST_DATA !== '1') fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  if (uncovered.length > 0) {
    throw new Error(`No test checked a success answer of these operations against the 1Claw reference:\n  ${uncovered.join('\n  ')}`);
  }
}

/**
 * The stack's last error-level lines, so a 500 seen by a test can be explained from the CI output
 * alone (the data directory is deleted). Some tests cause errors on purpose; this is for reading.
 */
function printStackErrors(logFile: string): void {
  if (!fs.existsSync(logFile)) return;
  const errors = fs.readFileSync(logFile, 'utf8').split('\n').filter((l) => l.includes('"level":"error"'));
  if (errors.length === 0) return;
  const shown = errors.slice(-10).map((l) => (l.length > 1500 ? `${l.slice(0, 1500)}…` : l));
  process.stderr.write(`\n--- the stack logged ${errors.length} error(s); the last ${shown.length} ---\n${shown.join('\n')}\n`);
}
