// Prebuilds the workflow bundle for production workers: `npm run build:workflows`.
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOWS_SOURCE, WORKFLOW_BUNDLE } from './worker-options.ts';

const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_SOURCE });
fs.mkdirSync(path.dirname(WORKFLOW_BUNDLE), { recursive: true });
fs.writeFileSync(WORKFLOW_BUNDLE, code);
console.log(`wrote ${WORKFLOW_BUNDLE} (${code.length} bytes)`);
