// Where the worker finds its workflow code: the prebuilt bundle when it exists (production),
// else the source, bundled at start (development and tests).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKFLOWS_SOURCE = path.join(here, '..', 'workflows', 'index.ts');
export const WORKFLOW_BUNDLE = path.join(here, '..', 'dist', 'workflow-bundle.js');

/** The prebuilt bundle if present; otherwise the source is bundled once here and shared by all workers. */
export async function workflowCodeOptions(): Promise<{ workflowBundle: { codePath: string } | { code: string } }> {
  if (process.env.WORKFLOW_BUNDLE !== 'off' && fs.existsSync(WORKFLOW_BUNDLE)) return { workflowBundle: { codePath: WORKFLOW_BUNDLE } };
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_SOURCE, logger: quietLogger });
  return { workflowBundle: { code } };
}

const quietLogger = new DefaultLogger('WARN');
