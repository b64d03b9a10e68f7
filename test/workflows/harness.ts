// Shared by the workflow tests: one real Temporal dev server (the CLI binary the dev launcher
// uses) and one bundle of workflows/index.ts for every test, plus a worker per test with swapped
// (fake) activities on its own task queue, so tests never see each other's work.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import { findTemporalCli } from '../../workers/temporal-dev-server.ts';
import { VAULT_SEARCH_ATTRIBUTES } from '../../domain/temporal/search-attribute-keys.ts';

export const projectRoot = path.resolve(__dirname, '..', '..');
export const WORKFLOWS_SOURCE = path.join(projectRoot, 'workflows', 'index.ts');
export const HISTORIES_DIR = path.join(__dirname, 'histories');
/** A fixed identity, so recorded histories carry no host name or pid. */
export const IDENTITY = 'workflow-tests';

export type WorkflowBundle = { code: string };
export type Harness = { env: TestWorkflowEnvironment; bundle: WorkflowBundle; stop: () => Promise<void> };

/** Failing activities are part of the tests: keep the SDK's warnings about them out of the output. */
const quiet = new DefaultLogger('ERROR');

export async function bundle(workflowsPath: string): Promise<WorkflowBundle> {
  return bundleWorkflowCode({ workflowsPath, logger: quiet });
}

export async function startHarness(): Promise<Harness> {
  Runtime.install({ logger: quiet, telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }) } } });
  const cli = findTemporalCli(projectRoot, process.env.TEMPORAL_CLI_PATH, (m) => process.stderr.write(`${m}\n`));
  const [env, code] = await Promise.all([
    TestWorkflowEnvironment.createLocal({
      // The same custom search attributes the worker registers at start (domain/temporal/search-attributes.ts).
      server: { executable: { type: 'existing-path', path: cli }, ip: '127.0.0.1', log: { format: 'pretty', level: 'error' }, searchAttributes: VAULT_SEARCH_ATTRIBUTES },
      client: { identity: IDENTITY },
    }),
    bundle(WORKFLOWS_SOURCE),
  ]);
  return { env, bundle: code, stop: () => env.teardown() };
}

/** A fresh task queue name, so each test's worker only sees its own workflows. */
export const freshQueue = (tag: string) => `test-${tag}-${randomUUID().slice(0, 8)}`;

/** Runs `fn` while a worker with `activities` polls `taskQueue`; shuts the worker down after. */
export async function withWorker<R>(h: Harness, taskQueue: string, activities: object, fn: () => Promise<R>): Promise<R> {
  const worker = await Worker.create({
    connection: h.env.nativeConnection, namespace: h.env.namespace ?? 'default', taskQueue,
    workflowBundle: h.bundle, activities, identity: IDENTITY,
  });
  return worker.runUntil(fn);
}

/** Resolves once `probe` holds, checking every 20 ms (tests wait on conditions, never on fixed sleeps). */
export async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
