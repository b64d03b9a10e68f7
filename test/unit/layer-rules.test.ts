// The layer rules of eslint.config.js catch what they are meant to: each case is linted as if it
// were a file at that path (eslint --stdin), so a config change that silently disables a rule
// fails here rather than letting violations through `npm run lint`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');

function lint(filePath: string, code: string): string[] {
  const r = spawnSync('sh', [path.join(root, 'bin', 'node24'), path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'),
    '--stdin', '--stdin-filename', filePath, '-f', 'json'], { cwd: root, input: code, encoding: 'utf8' });
  const results = JSON.parse(r.stdout) as { messages: { ruleId: string | null }[] }[];
  return results.flatMap((x) => x.messages.map((m) => m.ruleId ?? 'fatal'));
}

const cases: [string, string, string, string | null][] = [
  ['domain may not import the api', 'domain/vaults/x.ts', "import { allRoutes } from '../../api/routes/index.ts';\nexport const x = allRoutes;", 'boundaries/dependencies'],
  ['mcp may not import domain', 'mcp/x.ts', "import { notFound } from '../domain/errors.ts';\nexport const x = notFound;", 'boundaries/dependencies'],
  ['workflows may not import a domain module that is not workflow-safe', 'workflows/automations/x.ts', "import { notFound } from '../../domain/errors.ts';\nexport const x = notFound;", 'boundaries/dependencies'],
  ['workflows may not use Node built-ins', 'workflows/automations/x.ts', "import fs from 'node:fs';\nexport const x = fs;", 'no-restricted-imports'],
  ['domain may not open a pg client', 'domain/vaults/x.ts', "import pg from 'pg';\nexport const x = pg;", '@typescript-eslint/no-restricted-imports'],
  ['a repository may not open a pg client either', 'domain/vaults/x-repository.ts', "import pg from 'pg';\nexport const x = pg;", 'no-restricted-imports'],
  ['domain may name a workflow by type only', 'domain/vaults/x.ts', "import { automationRunWorkflow } from '../../workflows/automations/automation-run.ts';\nexport const x = automationRunWorkflow;", 'boundaries/dependencies'],
  ['two areas may not import each other', 'domain/access/x.ts', "import { loadVisibleVault } from '../vaults/vault-repository.ts';\nexport const x = loadVisibleVault;", 'layers/no-mutual-area-imports'],
  ['SQL text stays in repositories', 'domain/vaults/x.ts', "export const q = 'SELECT id FROM vaults WHERE org_id = $1';", 'no-restricted-syntax'],
  ['em.execute stays in repositories', 'domain/vaults/x.ts', "export const f = (em: { execute(s: string): void }) => em.execute('x');", 'no-restricted-syntax'],
  ['the query builder stays in repositories', 'domain/vaults/x.ts', "import { query } from '../../db/query.ts';\nexport const x = query;", '@typescript-eslint/no-restricted-imports'],
  ['a repository holds its statements', 'domain/vaults/x-repository.ts', "import { query } from '../../db/query.ts';\nexport const x = query;\nexport const q = 'SELECT id FROM vaults WHERE org_id = $1';", null],
  ['a workflow may import a workflow-safe helper', 'workflows/automations/x.ts', "import { MAX_TEMPLATE_INPUT } from '../../domain/automations/engine/templates.ts';\nexport const x = MAX_TEMPLATE_INPUT;", null],
  ['a domain client may import update definitions', 'domain/automations/x.ts', "import { decideApprovalUpdate } from '../../workflows/automations/run-messages.ts';\nexport const x = decideApprovalUpdate;", null],
  ['api may import domain', 'api/routes/x.ts', "import { notFound } from '../../domain/errors.ts';\nexport const x = notFound;", null],
];

test.each(cases)('%s', (_name, file, code, rule) => {
  const found = lint(file, code);
  if (rule === null) expect(found).toEqual([]);
  else expect(found).toContain(rule);
});
