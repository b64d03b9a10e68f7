// Where the worker finds its workflow code: the prebuilt bundle when it exists (production),
// else the source, bundled at start (development and tests). Both are built with the failure
// converter the workers and clients use (domain/temporal/failure-converter.ts): a workflow's own
// failures are converted inside the bundle.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, type BundleOptions } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH } from '../domain/temporal/payload-codec.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WORKFLOWS_SOURCE = path.join(here, '..', 'workflows', 'index.ts');
export const WORKFLOW_BUNDLE = path.join(here, '..', 'dist', 'workflow-bundle.js');
/** The same workflows with OpenTelemetry's workflow interceptors, for workers that trace. */
export const TRACED_WORKFLOW_BUNDLE = path.join(here, '..', 'dist', 'workflow-bundle-traced.js');
/** What every bundle of the service's workflows is built from, prebuilt or at start. */
export const WORKFLOW_BUNDLE_OPTIONS = { workflowsPath: WORKFLOWS_SOURCE, failureConverterPath: FAILURE_CONVERTER_PATH } satisfies BundleOptions;
/**
 * The traced bundle's options: the workflow interceptors start a span per workflow and activity
 * call and hand them to the worker's `exporter` sink. A separate bundle, so a worker without
 * tracing runs no interceptor at all.
 */
export const TRACED_WORKFLOW_BUNDLE_OPTIONS = {
  ...WORKFLOW_BUNDLE_OPTIONS,
  workflowInterceptorModules: [createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')],
} satisfies BundleOptions;

/** The prebuilt bundle if present; otherwise the source is bundled once here and shared by all workers. */
export async function workflowCodeOptions(traced = false): Promise<{ workflowBundle: { codePath: string } | { code: string } }> {
  const prebuilt = traced ? TRACED_WORKFLOW_BUNDLE : WORKFLOW_BUNDLE;
  if (process.env.WORKFLOW_BUNDLE !== 'off' && fs.existsSync(prebuilt)) return { workflowBundle: { codePath: prebuilt } };
  const { code } = await bundleWorkflowCode({ ...(traced ? TRACED_WORKFLOW_BUNDLE_OPTIONS : WORKFLOW_BUNDLE_OPTIONS), logger: quietLogger });
  return { workflowBundle: { code } };
}

const quietLogger = new DefaultLogger('WARN');
