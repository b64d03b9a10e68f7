// Shared start-up handling of the process entry points: configuration errors are printed
// plainly and the process exits non-zero; SIGINT/SIGTERM stop everything in order.
import { ConfigError } from '../domain/config.ts';

export async function runMain(start: () => Promise<() => Promise<void>>): Promise<void> {
  let stop: (() => Promise<void>) | undefined;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n${signal} received: stopping…\n`);
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    try { await stop?.(); } finally { process.exit(0); }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  try {
    stop = await start();
    if (stopping) await stop();
  } catch (e) {
    process.stderr.write(`${e instanceof ConfigError ? e.message : e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    process.exit(1);
  }
}
