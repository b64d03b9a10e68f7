// Prebuilds the workflow bundle for production workers: `npm run build:workflows`.
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_BUNDLE, WORKFLOW_BUNDLE_OPTIONS } from './worker-options.ts';

const { code } = await bundleWorkflowCode(WORKFLOW_BUNDLE_OPTIONS);
fs.mkdirSync(path.dirname(WORKFLOW_BUNDLE), { recursive: true });
fs.writeFileSync(WORKFLOW_BUNDLE, code);
console.log(`wrote ${WORKFLOW_BUNDLE} (${code.length} bytes)`);
