// A fresh SoftHSM2 token in `dir` for tests. SoftHSM2 reads SOFTHSM2_CONF (getenv) at every
// C_Initialize, so the variable is set here for this process and returned in `env` for children.
// Paths are absolute so a process with another working directory finds the same token.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import vm from 'node:vm';
import pkcs11js from 'pkcs11js';

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';

export function createSoftHsmToken(dir: string): { modulePath: string; tokenLabel: string; pin: string; env: Record<string, string> } {
  const root = resolve(dir);
  const tokenDir = join(root, 'tokens');
  const conf = join(root, 'softhsm2.conf');
  // softhsm2-util fails with "Could not initialize the object store" when the token dir is missing.
  mkdirSync(tokenDir, { recursive: true, mode: 0o700 });
  writeFileSync(conf, `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  const tokenLabel = `vault-test-${randomBytes(4).toString('hex')}`;
  const pin = randomBytes(8).toString('hex'); // random, so tests can assert messages never contain it
  const env = { SOFTHSM2_CONF: conf };
  // Pass the config explicitly: without it softhsm2-util (as root) would use the system token dir.
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', tokenLabel, '--pin', pin, '--so-pin', randomBytes(8).toString('hex')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  process.env.SOFTHSM2_CONF = conf;
  // Inside jest, `process.env` is a sandbox copy that native code never sees; the process of the
  // main context (the same object outside jest) writes the real environment.
  (vm.runInThisContext('process') as NodeJS.Process).env.SOFTHSM2_CONF = conf;
  return { modulePath: SOFTHSM_MODULE, tokenLabel, pin, env };
}

type Pkcs11 = InstanceType<typeof pkcs11js.PKCS11>;

const tolerate = (fn: () => void, code: number) => {
  try { fn(); } catch (e) { if ((e as { code?: number }).code !== code) throw e; }
};

/**
 * A second session of the test's own on `token`, to inspect what a Kms created. A Kms in this
 * process already initialized the module and logged in (both per process), so neither is redone
 * nor undone here.
 */
export function directSession<T>(token: { modulePath: string; tokenLabel: string; pin: string }, fn: (mod: Pkcs11, session: Buffer, slot: Buffer) => T): T {
  const mod = new pkcs11js.PKCS11();
  mod.load(token.modulePath);
  tolerate(() => mod.C_Initialize(), pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED);
  const slot = mod.C_GetSlotList(true).find((s) => mod.C_GetTokenInfo(s).label.trim() === token.tokenLabel)!;
  const session = mod.C_OpenSession(slot, pkcs11js.CKF_RW_SESSION | pkcs11js.CKF_SERIAL_SESSION);
  try {
    tolerate(() => mod.C_Login(session, pkcs11js.CKU_USER, token.pin), pkcs11js.CKR_USER_ALREADY_LOGGED_IN);
    return fn(mod, session, slot);
  } finally {
    try { mod.C_CloseSession(session); } catch { /* closed by the test */ }
  }
}
