// Requests whose handlers are still running. A stop waits for them before it closes the
// database: a client that hung up does not stop its handler (the server reports the connection
// closed at once), and closing the pools under that handler would fail its write and lose the
// audit record of a request that was already answered or committed.
export class InFlight {
  private running = 0;
  private waiters: (() => void)[] = [];

  track<T>(work: Promise<T>): Promise<T> {
    this.running++;
    return work.finally(() => {
      this.running--;
      if (this.running === 0) for (const w of this.waiters.splice(0)) w();
    });
  }

  get count(): number {
    return this.running;
  }

  /** Resolves true once nothing runs, or false when `timeoutMs` passes first. */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.running === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push(() => { clearTimeout(timer); resolve(true); });
    });
  }
}
