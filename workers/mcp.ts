// Entry point of the MCP tool server: `npx vault-mcp`, `npm run mcp`, or
// `sh bin/node24 workers/mcp.ts`. A client of the HTTP API only (mcp/): no database, no keys,
// so it runs on a laptop against a remote deployment. MCP_TRANSPORT picks stdio (default) or http.
import { McpConfigError, readMcpConfig } from '../mcp/config.ts';
import { createMcpLogger } from '../mcp/log.ts';
import { startStdio } from '../mcp/stdio-transport.ts';
import { startHttp } from '../mcp/http-transport.ts';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

async function main(): Promise<void> {
  const config = readMcpConfig(process.env);
  const log = createMcpLogger(config.logLevel);
  let stop: () => Promise<void>;
  let ended: Promise<void>;
  if (config.transport === 'stdio') {
    const session = await startStdio(config, log);
    stop = session.stop;
    ended = session.ended;
  } else {
    const server = await startHttp(config, log);
    stop = server.stop;
    ended = new Promise(() => {}); // until a signal
  }
  const signalled = new Promise<string>((resolve) => {
    for (const s of STOP_SIGNALS) process.once(s, () => resolve(s));
  });
  const why = await Promise.race([ended.then(() => 'input closed'), signalled]);
  log.info('stopping', { reason: why });
  // Tool calls under way get up to 20 s (mcp/http-transport.ts); the deadline is past that.
  const force = setTimeout(() => process.exit(1), 30_000);
  force.unref();
  await stop().catch(() => {});
  process.exit(0);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof McpConfigError ? e.message : e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exit(1);
});
