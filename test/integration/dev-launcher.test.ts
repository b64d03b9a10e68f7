// `npm start` on its own data directory: Ctrl-C stops every child (no orphaned PostgreSQL or
// Temporal), a second start finds the same data, and without SMTP_URL mail goes to the log.
// A terminal's Ctrl-C signals the whole foreground process group: the children run in their own
// groups, so only the launcher hears it and stops them in order (the api drains first).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { once } from 'node:events';
import { call } from '../helpers/api.ts';
import { freePort, makeDataDir, spawnEntry, stopGroup, waitFor, type StackInfo } from '../helpers/stack.ts';

const dataDir = makeDataDir('vault-dev-');
const launched: ChildProcess[] = [];
afterAll(async () => {
  // A failed test may leave its launcher running: stop it before its data directory goes.
  for (const child of launched) await stopGroup(child);
  fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

/** Processes whose command line mentions our data directory (Postgres, Temporal). */
function processesUsing(dir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(dir) && !l.includes('ps -eo'));
}

/** Starts the launcher the way a terminal would: in a process group of its own (spawnEntry). */
async function start(readyName: string, logName = 'launcher.log') {
  const readyFile = path.join(dataDir, readyName);
  const logFile = path.join(dataDir, logName);
  const child = spawnEntry('workers/dev.ts', {
    DATA_DIR: dataDir, PORT: String(await freePort()), TEMPORAL_UI: 'off', DEV_READY_FILE: readyFile, SMTP_URL: '', LOG_LEVEL: 'info',
  }, logFile);
  launched.push(child);
  const info = await waitFor<StackInfo>('dev launcher', 180_000,
    () => (fs.existsSync(readyFile) && fs.statSync(readyFile).size > 0 ? JSON.parse(fs.readFileSync(readyFile, 'utf8')) : undefined),
    () => child.exitCode !== null);
  return { child, info, logFile };
}

test('stops cleanly on SIGINT and keeps its data for the next start', async () => {
  const first = await start('ready-1.json');
  const email = 'dev-launcher@example.com';
  const signup = await call('POST', '/v1/auth/signup', { base: first.info.apiUrl, body: { email, password: 'a-long-password' } });
  expect(signup.status).toBe(200);
  expect(processesUsing(dataDir).length).toBeGreaterThan(0); // Postgres and Temporal run from it

  // Without SMTP_URL, mail is printed to the log so a local user can follow the flow.
  expect((await call('POST', '/v1/auth/forgot-password', { base: first.info.apiUrl, body: { email } })).body.status).toBe('email_sent');
  await waitFor('mail in the log', 30_000, () => (/Reset token: rst_/.test(fs.readFileSync(first.logFile, 'utf8')) ? true : undefined));

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

/**
 * Starts a login whose body has not arrived yet: resolves once the api holds it as a request in
 * flight (it answered `100 Continue`), with a function that sends the body and reads the answer.
 */
async function loginInFlight(apiUrl: string, email: string, password: string) {
  const url = new URL(apiUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  let answer = '';
  socket.on('data', (d) => { answer += d.toString(); });
  const body = JSON.stringify({ email, password });
  socket.write(`POST /v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
  await waitFor('100 Continue', 10_000, () => (answer.includes('100 Continue') ? true : undefined));
  return async () => {
    socket.write(body); // not end(): a half-closed request is aborted by the server
    await once(socket, 'close');
    return answer;
  };
}

test('Ctrl-C in a terminal (SIGINT to the whole process group) stops the children in order', async () => {
  const run = await start('ready-3.json', 'launcher-group.log');
  const email = 'dev-launcher-drain@example.com';
  expect((await call('POST', '/v1/auth/signup', { base: run.info.apiUrl, body: { email, password: 'a-long-password' } })).status).toBe(200);
  try {
    const finishLogin = await loginInFlight(run.info.apiUrl, email, 'a-long-password');
    const exited = new Promise<number | null>((resolve) => run.child.once('exit', (code) => resolve(code)));
    process.kill(-run.child.pid!, 'SIGINT'); // what the terminal does: the launcher's whole group
    // The api drains: the login still running completes, so PostgreSQL was still up.
    await waitFor('the api stopping', 30_000, () => (fs.readFileSync(run.logFile, 'utf8').includes('[dev] stopping the api') ? true : undefined));
    const answer = await finishLogin();
    expect(answer).toMatch(/HTTP\/1\.1 200 OK[\s\S]*"access_token":"/);
    expect(await exited).toBe(0);
    await waitFor('children gone', 30_000, () => (processesUsing(dataDir).length === 0 ? true : undefined));
  } finally {
    await stopGroup(run.child);
  }
  // The launcher's own account of the stop: each child stopped when asked, in reverse order of
  // start, and none had stopped before (PostgreSQL hearing the Ctrl-C itself would show here).
  const log = fs.readFileSync(run.logFile, 'utf8');
  expect(log).not.toMatch(/had already stopped/);
  expect(log).not.toMatch(/stopping .* failed/);
  const steps = log.split('\n').filter((l) => /^\[dev\] (stopping .*|.* stopped)$/.test(l));
  expect(steps).toEqual([
    '[dev] stopping the api', '[dev] the api stopped',
    '[dev] stopping the worker', '[dev] the worker stopped',
    '[dev] stopping the Temporal dev server', '[dev] the Temporal dev server stopped',
    '[dev] stopping PostgreSQL', '[dev] PostgreSQL stopped',
  ]);
}, 300_000);
