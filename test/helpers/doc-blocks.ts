// The docs runner (test/docs/walkthroughs.test.ts): reads a Markdown page's fenced `sh` blocks
// in order and runs them in ONE bash process per page, so what one block sets the next one uses.
// A block is skipped only when the line before its fence is `<!-- not run: <reason> -->`; a
// marker without a reason is an error. bash runs with `set -Eeuo pipefail` (and inherit_errexit),
// so any failing command fails the page; the report names the page, the block and its line, and
// shows the output. The page runs in its own process group, which is killed at the end, so
// receivers and nodes a walk-through starts in the background never outlive it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type DocBlock = {
  /** 1-based position among the page's shell blocks. */
  index: number;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** The reason it is not run, when marked so. */
  notRun?: string;
};

const SHELL_LANGS = new Set(['sh', 'bash', 'shell']);
const NOT_RUN = /^<!--\s*not run(?::\s*(.*?))?\s*-->$/;
const LOOKS_LIKE_MARKER = /^<!--.*\bnot[ -]?run\b/i;

/** The shell blocks of a page, and what is wrong with its markers (an empty list when nothing is). */
export function parseDocBlocks(markdown: string): { blocks: DocBlock[]; errors: string[] } {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  const errors: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]!);
    if (!open) { i++; continue; }
    const [, indent, fence, lang] = open as unknown as [string, string, string, string];
    const start = i;
    const body: string[] = [];
    i++;
    while (i < lines.length && !(lines[i]!.trimStart().startsWith(fence) && lines[i]!.trim().replace(/^[`~]+/, '') === '')) {
      const l = lines[i]!;
      body.push(l.startsWith(indent) ? l.slice(indent.length) : l.trimStart());
      i++;
    }
    if (i >= lines.length) errors.push(`line ${start + 1}: a code fence that is never closed`);
    i++;
    if (!SHELL_LANGS.has(lang.toLowerCase())) continue;
    let prev = start - 1;
    while (prev >= 0 && lines[prev]!.trim() === '') prev--;
    const before = prev >= 0 ? lines[prev]!.trim() : '';
    const block: DocBlock = { index: blocks.length + 1, line: start + 1, code: body.join('\n') };
    const marker = NOT_RUN.exec(before);
    if (marker) {
      const reason = marker[1] ?? '';
      if (reason.length < 3) errors.push(`line ${prev + 1}: "not run" needs a reason: <!-- not run: why -->`);
      block.notRun = reason;
    } else if (LOOKS_LIKE_MARKER.test(before)) {
      errors.push(`line ${prev + 1}: write the marker exactly as <!-- not run: why --> (found ${before})`);
    }
    blocks.push(block);
  }
  return { blocks, errors };
}

const MARK = '@@docs-runner@@';

/** The page as one bash script: the preamble (the page's stated setup), then each block that runs. */
export function buildScript(blocks: DocBlock[], preamble: string): string {
  const parts = [
    'set -Eeuo pipefail',
    'shopt -s inherit_errexit',
    preamble,
    // Each command, expanded, before it runs: a failure report then shows the command that failed.
    "PS4='+ '; set -x",
  ];
  for (const b of blocks) {
    if (b.notRun !== undefined) continue;
    parts.push(`{ printf '\\n${MARK} block ${b.index}\\n'; } 2>/dev/null`, b.code);
  }
  parts.push(`{ printf '\\n${MARK} done\\n'; } 2>/dev/null`);
  return parts.join('\n') + '\n';
}

export type PageRun = { ok: boolean; status: number | null; failedBlock?: DocBlock; output: string; seconds: number; timedOut: boolean };

/** Runs the page's blocks in one bash process (its own process group, killed at the end). */
export async function runDocPage(file: string, opts: { preamble: string; env: Record<string, string>; cwd: string; timeoutMs: number }): Promise<PageRun> {
  const { blocks, errors } = parseDocBlocks(fs.readFileSync(file, 'utf8'));
  if (errors.length > 0) throw new Error(`${file}:\n  ${errors.join('\n  ')}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-page-'));
  const scriptFile = path.join(dir, 'page.sh');
  const outFile = path.join(dir, 'output.txt');
  fs.writeFileSync(scriptFile, buildScript(blocks, opts.preamble));
  const out = fs.openSync(outFile, 'w');
  const started = Date.now();
  const child = spawn('bash', [scriptFile], {
    cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', out, out], detached: true,
  });
  fs.closeSync(out);
  let timedOut = false;
  const killGroup = (signal: NodeJS.Signals) => { try { process.kill(-child.pid!, signal); } catch { /* gone */ } };
  const timer = setTimeout(() => { timedOut = true; killGroup('SIGKILL'); }, opts.timeoutMs);
  const status = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  clearTimeout(timer);
  // Whatever the page left running in the background (receivers, a chain node, a tool server).
  killGroup('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  killGroup('SIGKILL');
  const output = fs.readFileSync(outFile, 'utf8');
  fs.rmSync(dir, { recursive: true, force: true });
  const reached = [...output.matchAll(new RegExp(`^${MARK} block (\\d+)$`, 'gm'))].map((m) => Number(m[1]));
  const done = output.includes(`${MARK} done`);
  const ok = status === 0 && done && !timedOut;
  const last = reached.at(-1);
  return {
    ok, status, output, timedOut, seconds: (Date.now() - started) / 1000,
    failedBlock: ok || last === undefined ? undefined : blocks.find((b) => b.index === last),
  };
}

/** A failure report: the page, the block (number, line, code) and the output, the block's own last. */
export function describeFailure(file: string, run: PageRun): string {
  const b = run.failedBlock;
  const where = b ? `block ${b.index} (the sh block at line ${b.line})` : 'the preamble (before its first block)';
  const why = run.timedOut ? 'timed out' : `bash exited with status ${run.status}`;
  const sections = run.output.split(new RegExp(`\\n?${MARK} `));
  const blockOutput = b ? (sections.find((s) => s.startsWith(`block ${b.index}\n`)) ?? '').replace(/^block \d+\n/, '') : run.output;
  const tail = (s: string, n: number) => (s.length > n ? `…${s.slice(-n)}` : s);
  return [
    `${file}: ${where} failed: ${why}.`,
    b ? `--- the block ---\n${b.code}` : '',
    `--- its output ---\n${tail(blockOutput, 6000) || '(none)'}`,
  ].filter(Boolean).join('\n');
}
