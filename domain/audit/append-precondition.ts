// A condition on rows outside the audit log that a guarded record needs: the record is written
// only if the condition still holds, checked inside the statement that appends it, so a guarded
// record costs no round trip of its own. The audit writer knows no area's rows; the area that
// guards its records supplies the SQL (today: cached secret reads, domain/secrets/read-guard.ts).
export type AppendPrecondition = {
  /** Array parameters a batch of guards takes, the record's 1-based place in the batch first. */
  columns: number;
  /** The statement fragment giving the `ord` of every guard that no longer holds, over parameters $first.. */
  staleSql(first: number): string;
  /** What a record whose guard no longer holds is rejected with. */
  staleError(): Error;
};

/** One record's guard: its values in the precondition's column order, after `ord`. */
export type AppendGuard = readonly unknown[];
