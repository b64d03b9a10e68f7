// The OpenAPI document lints clean with a standard linter: Redocly's `recommended` ruleset, no
// error and no warning. The document is built from the route declarations without a running
// stack, by a Node 24 script (test/helpers/openapi-lint.ts), because @redocly/openapi-core is
// ESM-only and the app's .ts files run through Node's type stripping.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../helpers/stack.ts';

type Finding = { rule: string; severity: string; message: string; where: string };

test('the OpenAPI document has no Redocly finding (recommended ruleset)', () => {
  const out = execFileSync('sh', [path.join(projectRoot, 'bin', 'node24'), path.join(projectRoot, 'test/helpers/openapi-lint.ts')], { cwd: projectRoot, maxBuffer: 64 << 20 });
  const findings = JSON.parse(out.toString()) as Finding[];
  expect(findings).toEqual([]);
}, 120_000);
