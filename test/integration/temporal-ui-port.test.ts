// The dev launcher serves the Temporal UI on a stable port (TEMPORAL_UI_PORT, 8233 by default) so
// an operator's bookmark keeps working; only when that port is taken does it fall back to a free
// one, and then it says so.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { findTemporalCli, startTemporalDevServer } from '../../workers/temporal-dev-server.ts';
import { freePort, projectRoot } from '../helpers/stack.ts';

const cli = findTemporalCli(projectRoot, process.env.TEMPORAL_CLI_PATH, () => {});
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });
const dataDir = () => { const d = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-ui-')); dirs.push(d); return d; };

test('the UI is on the port asked for', async () => {
  const port = await freePort();
  const logs: string[] = [];
  const t = await startTemporalDevServer(cli, dataDir(), { ui: true, uiPort: port }, (m) => logs.push(m));
  try {
    expect(t.uiUrl).toBe(`http://127.0.0.1:${port}`);
    const page = await waitForHttp(`${t.uiUrl}/`);
    expect(page.status).toBe(200);
    expect(logs.join('\n')).not.toMatch(/WARNING/);
  } finally {
    await t.stop();
  }
}, 120_000);

test('a taken port moves the UI to a free one, with a warning naming both', async () => {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
  const taken = (blocker.address() as net.AddressInfo).port;
  const logs: string[] = [];
  try {
    const t = await startTemporalDevServer(cli, dataDir(), { ui: true, uiPort: taken }, (m) => logs.push(m));
    try {
      const moved = Number(new URL(t.uiUrl!).port);
      expect(moved).not.toBe(taken);
      expect((await waitForHttp(`${t.uiUrl}/`)).status).toBe(200);
      const warning = logs.join('\n');
      expect(warning).toContain(`port ${taken} for the Temporal UI is taken`);
      expect(warning).toContain(`port ${moved} this time`);
      expect(warning).toContain('TEMPORAL_UI_PORT');
    } finally {
      await t.stop();
    }
  } finally {
    blocker.close();
  }
}, 120_000);

/** The UI server starts a moment after the gRPC port opens. */
async function waitForHttp(url: string): Promise<Response> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await fetch(url);
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
