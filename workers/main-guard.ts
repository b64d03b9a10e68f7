// Shared start-up handling of the process entry points: configuration errors are printed
// plainly and the process exits non-zero; a stop signal stops everything in order.
import { ConfigError } from '../domain/config.ts';

/**
 * Every signal that asks a process to end, from a terminal (Ctrl-C, Ctrl-\, closing it) or a
 * supervisor. The dev launcher's children run in their own process groups and hear none of
 * these themselves: whichever arrives here, the launcher stops them, in order.
 */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;
/**
 * Once a stop begins, requests under way (api) and running activities (worker) get this long to
 * finish; the process exits with 1 at STOP_DEADLINE_MS whatever still runs (a supervisor's grace
 * period must be longer, e.g. docker compose's `stop_grace_period`).
 */
export const DRAIN_TIMEOUT_MS = 20_000;
const STOP_DEADLINE_MS = 30_000;

export async function runMain(start: () => Promise<() => Promise<void>>): Promise<void> {
  let stop: (() => Promise<void>) | undefined;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n${signal} received: stopping…\n`);
    const force = setTimeout(() => process.exit(1), STOP_DEADLINE_MS);
    force.unref();
    try { await stop?.(); } finally { process.exit(0); }
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => void shutdown(signal));
  try {
    stop = await start();
    if (stopping) await stop();
  } catch (e) {
    process.stderr.write(`${e instanceof ConfigError ? e.message : e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    process.exit(1);
  }
}
