// ESLint rule: two domain areas (domain/<area>/) never import each other. An edge A -> B is
// reported when some file of B imports A, so a new cycle fails lint at both ends. The reverse
// edges come from reading the other area's files once per lint run (a regex over import
// specifiers is enough: every import in this code base is a static `from '…'` or `import('…')`).
import fs from 'node:fs';
import path from 'node:path';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*)'([^']+)'/g;
const areaCache = new Map();

/** The domain area a file belongs to, or null for domain/*.ts and files outside domain/. */
function areaOf(domainRoot, file) {
  const rel = path.relative(domainRoot, file);
  if (rel.startsWith('..') || !rel.includes(path.sep)) return null;
  return rel.split(path.sep)[0];
}

/** The areas that any file of `area` imports (static and dynamic imports, types included). */
function importsOfArea(domainRoot, area) {
  if (areaCache.has(area)) return areaCache.get(area);
  const dir = path.join(domainRoot, area);
  const found = new Set();
  for (const rel of fs.readdirSync(dir, { recursive: true })) {
    if (!String(rel).endsWith('.ts')) continue;
    const file = path.join(dir, String(rel));
    for (const m of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (!m[1].startsWith('.')) continue;
      const target = areaOf(domainRoot, path.resolve(path.dirname(file), m[1]));
      if (target && target !== area) found.add(target);
    }
  }
  areaCache.set(area, found);
  return found;
}

export const noMutualAreaImports = {
  meta: {
    type: 'problem',
    docs: { description: 'Two domain areas must not import each other (ARCHITECTURE.md: areas form a hierarchy)' },
    schema: [{ type: 'object', properties: { domainRoot: { type: 'string' } }, required: ['domainRoot'] }],
    messages: { mutual: "domain/{{from}} imports domain/{{to}}, and domain/{{to}} imports domain/{{from}}: move the shared piece down into one of them or a lower area" },
  },
  create(context) {
    const { domainRoot } = context.options[0];
    const from = areaOf(domainRoot, context.filename);
    if (!from) return {};
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = areaOf(domainRoot, path.resolve(path.dirname(context.filename), source));
      if (!to || to === from) return;
      if (importsOfArea(domainRoot, to).has(from)) context.report({ node, messageId: 'mutual', data: { from, to } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};
