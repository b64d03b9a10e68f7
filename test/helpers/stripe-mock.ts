// Stripe's own API mock server for tests (stripe-mock, built by .ci/run into .tools/bin from the
// Go module proxy, or STRIPE_MOCK_PATH): it answers every Stripe API call with the API's shapes
// (canned objects), so the Stripe client and our calls through it run for real.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../db/free-port.ts';
import { projectRoot } from './stack.ts';

export type StripeMock = { url: string; stop(): Promise<void> };

function binary(): string {
  const file = process.env.STRIPE_MOCK_PATH ?? path.join(projectRoot, '.tools', 'bin', 'stripe-mock');
  if (!fs.existsSync(file)) throw new Error(`stripe-mock not found at ${file}: run .ci/run (it builds it) or set STRIPE_MOCK_PATH`);
  return file;
}

export async function startStripeMock(): Promise<StripeMock> {
  const port = await freePort();
  const child: ChildProcess = spawn(binary(), ['-http-port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (c: Buffer) => {
      output += c.toString();
      if (output.includes('Listening for HTTP')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`stripe-mock exited (${code}): ${output}`)));
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}
