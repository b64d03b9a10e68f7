// DATA_DIR/root.key: created 0600 on first start, then the same key on every start, whichever of
// several processes starting together on one volume (api and worker replicas) creates it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { loadOrCreateRootKey } from '../../domain/crypto/root-key.ts';

let dir: string;
beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-root-key-file-')); });
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test('created once, 0600, 32 bytes; later starts read the same key; ROOT_KEY wins and writes nothing', () => {
  const first = loadOrCreateRootKey(dir, undefined);
  expect(first).toHaveLength(32);
  expect(fs.statSync(path.join(dir, 'root.key')).mode & 0o777).toBe(0o600);
  expect(loadOrCreateRootKey(dir, undefined).equals(first)).toBe(true);
  expect(fs.readdirSync(dir)).toEqual(['root.key']); // no temporary file left behind
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-root-key-env-'));
  try {
    const fromEnv = Buffer.alloc(32, 7);
    expect(loadOrCreateRootKey(other, fromEnv)).toBe(fromEnv);
    expect(fs.readdirSync(other)).toEqual([]);
  } finally {
    fs.rmSync(other, { recursive: true, force: true });
  }
});

test('eight processes starting together on one directory all get the one key', async () => {
  // Each child loads the module as the service does (Node's own TypeScript support) and prints the key.
  const script = path.join(dir, 'load.mjs');
  const modulePath = path.resolve(__dirname, '..', '..', 'domain', 'crypto', 'root-key.ts');
  fs.writeFileSync(script, `import { loadOrCreateRootKey } from ${JSON.stringify(modulePath)};\nprocess.stdout.write(loadOrCreateRootKey(process.argv[2], undefined).toString('base64'));\n`);
  const node = process.env.NODE24_BIN ?? process.execPath;
  const keys = await Promise.all(Array.from({ length: 8 }, () => new Promise<string>((resolve, reject) => {
    const child = fork(script, [path.join(dir, 'data')], { execPath: node, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
    child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
    // 'close', not 'exit': a child's output may still be in its pipe when it has exited.
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
  })));
  expect(new Set(keys).size).toBe(1);
  expect(Buffer.from(keys[0]!, 'base64')).toHaveLength(32);
});
