// What a sender's open submits hold (Bitcoin coins, XRP sequences, Cardano UTxOs) as this process
// last read it, kept a few seconds for sign-only transfers: they reserve nothing, and the
// statement that records one refuses it when what it spends is held (family-record-repository.ts),
// so a kept copy is only a hint that spares the read on the hot path. A refusal, or a build that
// the hint made fail, reads again.

/** How long a read of the reservations serves as a hint. */
export const RESERVED_HINT_TTL_MS = 5_000;
const HINTS_MAX = 10_000;

export class ReservedHints {
  private readonly kept = new Map<string, { at: number; held: Set<string> }>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** The last read for `key` while it is fresh; an empty set when there is none (the statement checks). */
  get(key: string): Set<string> {
    const k = this.kept.get(key);
    return k && this.now() - k.at < RESERVED_HINT_TTL_MS ? k.held : new Set();
  }

  /** What a submit of this process just reserved, added to a fresh hint (none: the next read finds it). */
  hold(key: string, items: readonly string[]): void {
    const k = this.kept.get(key);
    if (k && this.now() - k.at < RESERVED_HINT_TTL_MS) for (const item of items) k.held.add(item);
  }

  remember(key: string, held: Set<string>): void {
    if (this.kept.size >= HINTS_MAX) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, { at: this.now(), held });
  }
}
