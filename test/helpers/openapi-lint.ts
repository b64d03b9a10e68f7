// Builds the OpenAPI document from the route declarations (no running stack) and lints it with
// Redocly's `recommended` ruleset, printing the findings as JSON. Run with Node 24:
// @redocly/openapi-core is ESM-only, and the app's .ts files run through type stripping.
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { createApp } from '../../api/app.ts';
import { buildOpenApi } from '../../api/openapi.ts';
import type { ApiServices } from '../../api/services.ts';

// Handlers never run here: the services are placeholders that only let the app assemble.
const placeholder = new Proxy({}, { get: () => placeholder }) as unknown as ApiServices;
const services = { ...placeholder, config: { trustProxyHops: 0 } } as unknown as ApiServices;
const { routes } = createApp(services);
// The document as a deployment serves it: PUBLIC_URL set (the linter rightly flags localhost).
const doc = buildOpenApi(routes, 'https://vault.test', 'test');

const config = await createConfig({ extends: ['recommended'] });
const problems = await lintFromString({ source: JSON.stringify(doc, null, 2), absoluteRef: 'openapi.json', config });
// The reference publishes both forms of the public webhook trigger (facts §12: "both forms
// appear"), so /v1/automations/webhook/{id}/{token} is necessarily ambiguous with
// /v1/automations/{id}/… templates. This one conflict is accepted; any other is a finding.
const ACCEPTED_AMBIGUITY = '/v1/automations/webhook/{id}/{token}';
const findings = problems.filter((p) => !(p.ruleId === 'no-ambiguous-paths' && p.message.includes(ACCEPTED_AMBIGUITY))).map((p) => ({
  rule: p.ruleId,
  severity: p.severity,
  message: p.message,
  where: p.location.map((l) => l.pointer).join(' '),
}));
process.stdout.write(JSON.stringify(findings));
