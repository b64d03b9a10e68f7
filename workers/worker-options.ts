// Where the worker finds its workflow code: the prebuilt bundle when it exists (production),
// else the source, bundled at start (development and tests). Both are built with the failure
// converter the workers and clients use (domain/temporal/failure-converter.ts): a workflow's own
// failures are converted inside the bundle.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, type BundleOptions } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH } from '../domain/temporal/payload-codec.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKFLOWS_SOURCE = path.join(here, '..', 'workflows', 'index.ts');
export const WORKFLOW_BUNDLE = path.join(here, '..', 'dist', 'workflow-bundle.js');
/** What every bundle of the service's workflows is built from, prebuilt or at start. */
export const WORKFLOW_BUNDLE_OPTIONS = { workflowsPath: WORKFLOWS_SOURCE, failureConverterPath: FAILURE_CONVERTER_PATH } satisfies BundleOptions;

/** The prebuilt bundle if present; otherwise the source is bundled once here and shared by all workers. */
export async function workflowCodeOptions(): Promise<{ workflowBundle: { codePath: string } | { code: string } }> {
  if (process.env.WORKFLOW_BUNDLE !== 'off' && fs.existsSync(WORKFLOW_BUNDLE)) return { workflowBundle: { codePath: WORKFLOW_BUNDLE } };
  const { code } = await bundleWorkflowCode({ ...WORKFLOW_BUNDLE_OPTIONS, logger: quietLogger });
  return { workflowBundle: { code } };
}

const quietLogger = new DefaultLogger('WARN');
