// CPU time of the stack under test, split by who spent it (Linux /proc): the Temporal server,
// PostgreSQL, the workflow sandbox (Node worker threads), the Node main thread (api and
// activities), the SDK's Rust core, and V8/libuv helper threads (GC, compilation, file I/O).
// Two snapshots around a phase give the CPU each part spent in it; the bench divides by runs.
import fs from 'node:fs';

export type CpuPart = 'Temporal server' | 'PostgreSQL' | 'workflow sandbox' | 'api + activities (main thread)' | 'SDK core (Rust)' | 'GC and helpers' | 'other';
export type CpuSnapshot = Map<CpuPart, number>; // milliseconds of user + system CPU

const TICK_MS = 10; // USER_HZ is 100 on Linux

const readText = (p: string) => { try { return fs.readFileSync(p, 'utf8'); } catch { return undefined; } };

/** utime + stime of a /proc stat line, in ms (fields 14 and 15; the command may hold spaces). */
function cpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const tid of fs.readdirSync(`/proc/${pid}/task`, { withFileTypes: false }) as string[]) {
    const kids = readText(`/proc/${pid}/task/${tid}/children`);
    if (kids) out.push(...kids.trim().split(/\s+/).filter(Boolean).map(Number));
  }
  return out;
}

function threadPart(comm: string): CpuPart {
  if (comm === 'MainThread') return 'api + activities (main thread)';
  if (comm === 'WorkerThread') return 'workflow sandbox';
  if (/^(temporal-real|tokio-runtime|workflow-proces|activity-proc)/.test(comm)) return 'SDK core (Rust)';
  if (/^(V8Worker|libuv-worker|DelayedTaskSche|SignalInspector)/.test(comm)) return 'GC and helpers';
  return 'other';
}

/** CPU spent so far by the process tree under rootPid, split by part; undefined where /proc is missing. */
export function cpuSnapshot(rootPid: number | undefined): CpuSnapshot | undefined {
  if (rootPid === undefined || !fs.existsSync(`/proc/${rootPid}`)) return undefined;
  const snap: CpuSnapshot = new Map();
  const add = (part: CpuPart, v: number) => snap.set(part, (snap.get(part) ?? 0) + v);
  const walk = (pid: number, inherited?: CpuPart) => {
    const comm = readText(`/proc/${pid}/comm`)?.trim();
    if (comm === undefined) return; // gone meanwhile
    const own: CpuPart | undefined = inherited ?? (comm === 'temporal' ? 'Temporal server' : comm === 'postgres' ? 'PostgreSQL' : undefined);
    if (own) {
      const stat = readText(`/proc/${pid}/stat`);
      if (stat) add(own, cpuMs(stat));
    } else {
      // Node names its main thread MainThread, which is then the process's comm too; a shell
      // wrapper (sh bin/node24) lands in "other" with next to nothing.
      for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
        const stat = readText(`/proc/${pid}/task/${tid}/stat`);
        const tcomm = readText(`/proc/${pid}/task/${tid}/comm`)?.trim();
        if (stat && tcomm !== undefined) add(threadPart(tcomm), cpuMs(stat));
      }
    }
    for (const child of childrenOf(pid)) walk(child, own);
  };
  walk(rootPid);
  return snap;
}

/**
 * Markdown lines: ms of CPU per run for each part between two snapshots, and the total.
 * A process that ended between the snapshots (a Postgres backend) loses its share: a lower bound.
 */
export function cpuPerRunLines(before: CpuSnapshot, after: CpuSnapshot, runs: number, benchClientMs: number): string[] {
  if (runs === 0) return [];
  const parts = [...new Set([...before.keys(), ...after.keys()])];
  const rows = parts.map((p) => [p, Math.max(0, (after.get(p) ?? 0) - (before.get(p) ?? 0))] as const)
    .filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, v]) => sum + v, 0);
  return [
    `| CPU per run over the phase (${runs} runs) | ms per run | share |`, '| --- | ---: | ---: |',
    ...rows.map(([p, v]) => `| ${p} | ${(v / runs).toFixed(1)} | ${((100 * v) / total).toFixed(0)} % |`),
    `| **the stack, total** | **${(total / runs).toFixed(1)}** | |`,
    `| (the bench's own client, not in the total) | ${(benchClientMs / runs).toFixed(1)} | |`,
  ];
}
