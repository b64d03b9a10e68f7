// Prebuilds the workflow bundles for production workers: `npm run build:workflows`.
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { TRACED_WORKFLOW_BUNDLE, TRACED_WORKFLOW_BUNDLE_OPTIONS, WORKFLOW_BUNDLE, WORKFLOW_BUNDLE_OPTIONS } from './worker-options.ts';

// Two bundles: workers with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT) load the traced one.
for (const [file, options] of [[WORKFLOW_BUNDLE, WORKFLOW_BUNDLE_OPTIONS], [TRACED_WORKFLOW_BUNDLE, TRACED_WORKFLOW_BUNDLE_OPTIONS]] as const) {
  const { code } = await bundleWorkflowCode(options);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, code);
  console.log(`wrote ${file} (${code.length} bytes)`);
}
