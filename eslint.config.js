// npm run lint: typescript-eslint's recommended rules and the layer rules of ARCHITECTURE.md.
// Layers: api -> domain -> db; activities adapt workflow calls to domain commands; workflows
// import only the workflow SDK, activity types and pure helpers; mcp/ is a client of the HTTP
// API only; workers/ (process entry points) and test/ may reach everything. Exceptions are
// written here with their reason.
import tseslint from 'typescript-eslint';
import boundaries from 'eslint-plugin-boundaries';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { noMutualAreaImports } from './test/lint/no-mutual-area-imports.js';

const root = path.dirname(fileURLToPath(import.meta.url));

/** Domain modules a workflow may import: pure code (no I/O, no Node built-ins), checked again by the bundle build. */
const WORKFLOW_SAFE_DOMAIN = [
  'domain/automations/engine/**', 'domain/automations/spec/step-types.ts', 'domain/automations/run-attributes.ts',
  'domain/temporal/search-attribute-keys.ts', 'domain/ai/run-usage.ts',
];

const el = (...types) => ({ element: { type: types.length === 1 ? types[0] : types } });
const allowTo = (...types) => ({ to: el(...types) });

export default tseslint.config(
  { ignores: ['node_modules/**', '.tools/**', '.data/**', 'dist/**', 'coverage/**', '**/*.d.ts'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.js'],
    plugins: { boundaries, layers: { rules: { 'no-mutual-area-imports': noMutualAreaImports } } },
    settings: {
      'boundaries/root-path': root,
      'boundaries/include': ['api/**', 'mcp/**', 'domain/**', 'db/**', 'activities/**', 'workflows/**', 'workers/**', 'test/**'],
      'boundaries/files': [
        { category: 'workflow-safe', pattern: WORKFLOW_SAFE_DOMAIN },
        { category: 'workflow-messages', pattern: 'workflows/**/*-messages.ts' },
      ],
      'boundaries/elements': [
        { type: 'domain', pattern: 'domain/**', partialMatch: false },
        { type: 'api', pattern: 'api/**', partialMatch: false },
        { type: 'mcp', pattern: 'mcp/**', partialMatch: false },
        { type: 'db', pattern: 'db/**', partialMatch: false },
        { type: 'activities', pattern: 'activities/**', partialMatch: false },
        { type: 'workflows', pattern: 'workflows/**', partialMatch: false },
        { type: 'workers', pattern: 'workers/**', partialMatch: false },
        { type: 'test', pattern: 'test/**', partialMatch: false },
      ],
    },
    rules: {
      // `const { secret: _secret, ...rest } = row` drops a field on purpose; `_x` says "unused by design".
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'layers/no-mutual-area-imports': ['error', { domainRoot: path.join(root, 'domain') }],
      'boundaries/dependencies': ['error', {
        default: 'disallow',
        policies: [
          { from: el('api'), allow: allowTo('api', 'domain') },
          { from: el('domain'), allow: allowTo('domain', 'db') },
          // A Temporal area's client (domain/<area>/client.ts) names its workflows: their types,
          // and the update/signal definitions in workflows/<area>/*-messages.ts.
          { from: el('domain'), allow: { to: el('workflows'), dependency: { kind: 'type' } } },
          { from: el('domain'), allow: { to: { element: { type: 'workflows' }, file: { categories: 'workflow-messages' } } } },
          { from: el('db'), allow: allowTo('db') },
          { from: el('activities'), allow: allowTo('activities', 'domain') },
          { from: el('workflows'), allow: allowTo('workflows') },
          { from: el('workflows'), allow: { to: { element: { type: 'domain' }, file: { categories: 'workflow-safe' } } } },
          { from: el('workflows'), allow: { to: el('activities'), dependency: { kind: 'type' } } },
          { from: el('mcp'), allow: allowTo('mcp') },
          { from: el('workers', 'test'), allow: allowTo('api', 'mcp', 'domain', 'db', 'activities', 'workflows', 'workers', 'test') },
        ],
      }],
    },
  },
  {
    // Only db/ holds database pools (db/orm.ts, db/hot-reads.ts): nothing else opens a pg client.
    files: ['api/**', 'mcp/**', 'domain/**', 'activities/**', 'workflows/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'pg', message: 'Reach Postgres through db/ and an area repository.' }] }] },
  },
  {
    // Queries live only in each area's repository (ARCHITECTURE.md: db/ is the one gateway):
    // elsewhere (domain, api, activities, workers) no query builder, no em.execute, no SQL text.
    files: ['domain/**', 'api/**', 'activities/**', 'workers/**'],
    ignores: ['domain/**/*-repository.ts'],
    rules: {
      // Row types may come from kysely and db/query.ts (`import type`); statements may not.
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [
          { name: 'pg', message: 'Reach Postgres through db/ and an area repository.' },
          { name: 'kysely', message: 'Statements belong in the area\'s *-repository.ts.', allowTypeImports: true },
        ],
        patterns: [{ group: ['**/db/query.ts'], message: 'Statements belong in the area\'s *-repository.ts.', allowTypeImports: true }],
      }],
      'no-restricted-syntax': ['error',
        { selector: "CallExpression[callee.property.name=/^(execute|getKysely|getConnection)$/]", message: 'Statements belong in the area\'s *-repository.ts.' },
        { selector: String.raw`Literal[value=/^\s*(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|WITH \w+ AS)\b/]`, message: 'SQL text belongs in the area\'s *-repository.ts.' },
        { selector: String.raw`TemplateElement[value.raw=/^\s*(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|WITH \w+ AS)\b/]`, message: 'SQL text belongs in the area\'s *-repository.ts.' },
      ],
    },
  },
  {
    // Workflow code is replayed in Temporal's sandbox: only the workflow SDK and relative imports.
    files: ['workflows/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!@temporalio/(workflow|common)$)(?!\\.)', message: 'Workflows import only @temporalio/workflow, @temporalio/common and relative modules.' }] }],
    },
  },
  {
    // Tests read JSON bodies as `any` on purpose: the shape is what the expect() calls assert.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
