// `npm start` on its own data directory: Ctrl-C stops every child (no orphaned PostgreSQL or
// Temporal), a second start finds the same data, and without SMTP_URL mail goes to the log.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { call } from '../helpers/api.ts';
import { freePort, makeDataDir, spawnEntry, stopGroup, waitFor, type StackInfo } from '../helpers/stack.ts';

const dataDir = makeDataDir('vault-dev-');
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }));

/** Processes whose command line mentions our data directory (Postgres, Temporal). */
function processesUsing(dir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(dir) && !l.includes('ps -eo'));
}

async function start(readyName: string) {
  const readyFile = path.join(dataDir, readyName);
  const child = spawnEntry('workers/dev.ts', {
    DATA_DIR: dataDir, PORT: String(await freePort()), TEMPORAL_UI: 'off', DEV_READY_FILE: readyFile, SMTP_URL: '', LOG_LEVEL: 'info',
  }, path.join(dataDir, 'launcher.log'));
  const info = await waitFor<StackInfo>('dev launcher', 180_000,
    () => (fs.existsSync(readyFile) && fs.statSync(readyFile).size > 0 ? JSON.parse(fs.readFileSync(readyFile, 'utf8')) : undefined),
    () => child.exitCode !== null);
  return { child, info };
}

test('stops cleanly on SIGINT and keeps its data for the next start', async () => {
  const first = await start('ready-1.json');
  const email = 'dev-launcher@example.com';
  const signup = await call('POST', '/v1/auth/signup', { base: first.info.apiUrl, body: { email, password: 'a-long-password' } });
  expect(signup.status).toBe(200);
  expect(processesUsing(dataDir).length).toBeGreaterThan(0); // Postgres and Temporal run from it

  // Without SMTP_URL, mail is printed to the log so a local user can follow the flow.
  expect((await call('POST', '/v1/auth/forgot-password', { base: first.info.apiUrl, body: { email } })).body.status).toBe('email_sent');
  await waitFor('mail in the log', 30_000, () => (/Reset token: rst_/.test(fs.readFileSync(path.join(dataDir, 'launcher.log'), 'utf8')) ? true : undefined));

  // Ctrl-C reaches the launcher (SIGINT); every child stops with it.
  const exited = new Promise<number | null>((resolve) => first.child.once('exit', (code) => resolve(code)));
  process.kill(first.child.pid!, 'SIGINT');
  expect(await exited).toBe(0);
  await waitFor('children gone', 30_000, () => (processesUsing(dataDir).length === 0 ? true : undefined));

  const second = await start('ready-2.json');
  try {
    const login = await call('POST', '/v1/auth/token', { base: second.info.apiUrl, body: { email, password: 'a-long-password' } });
    expect(login.status).toBe(200);
    // The signing key survived too: the token from the first run still verifies.
    expect((await call('GET', '/v1/auth/me', { base: second.info.apiUrl, token: signup.body.access_token })).status).toBe(200);
  } finally {
    await stopGroup(second.child);
  }
  await waitFor('children gone', 30_000, () => (processesUsing(dataDir).length === 0 ? true : undefined));
}, 400_000);
