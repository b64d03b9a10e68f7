// The run's running-time budget (`timeoutSeconds`, 300 s by default), measured by a timer here.
// Time spent waiting for a human's decision does not count: the approval's own expiry bounds it.
import { condition, isCancellation } from '@temporalio/workflow';

export class RunClock {
  private usedMs = 0;
  private since: number | null = Date.now();
  private done = false;
  private readonly watchdog: Promise<void>;

  /** Starts counting now; `onTimeout` runs once the budget is spent. */
  constructor(timeoutSeconds: number, onTimeout: () => void) {
    this.watchdog = (async () => {
      try {
        while (!this.done) {
          if (this.since === null) { await condition(() => this.since !== null || this.done); continue; }
          const left = timeoutSeconds * 1000 - this.usedMs - (Date.now() - this.since);
          if (left <= 0) { onTimeout(); return; }
          await condition(() => this.since === null || this.done, left);
        }
      } catch (e) {
        // The workflow was cancelled (a human cancelled the run): nothing left to time.
        if (!isCancellation(e)) throw e;
      }
    })();
  }

  pause(): void {
    if (this.since !== null) { this.usedMs += Date.now() - this.since; this.since = null; }
  }

  resume(): void {
    this.since ??= Date.now();
  }

  /** Stops the watchdog and waits for it to end. */
  async stop(): Promise<void> {
    this.done = true;
    await this.watchdog;
  }
}
