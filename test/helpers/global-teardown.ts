import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { stopGroup } from './stack.ts';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as { __stack?: { child: ChildProcess; smtp: { close: () => Promise<void> } } };
  if (!g.__stack) return;
  await stopGroup(g.__stack.child);
  await g.__stack.smtp.close();
  const dir = process.env.TEST_DATA_DIR;
  if (dir && process.env.KEEP_TEST_DATA !== '1') fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}
