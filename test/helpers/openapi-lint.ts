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
// Two conflicts come from the specification itself and are accepted; any other is a finding:
// - the reference publishes both forms of the public webhook trigger (facts §12: "both forms
//   appear"), so /v1/automations/webhook/{id}/{token} is ambiguous with /v1/automations/{id}/…;
// - spec §4.7 puts treasury wallets at /v1/treasury/wallets/{chain} beside
//   /v1/treasury/{treasury_id}/…; the router lists the wallet routes first, so `wallets` is never
//   taken for a treasury id (test/integration/treasury-wallets.test.ts reads them).
const ACCEPTED_AMBIGUITIES = ['/v1/automations/webhook/{id}/{token}', '/v1/treasury/wallets/{chain}'];
const accepted = (p: { ruleId: string; message: string }) => p.ruleId === 'no-ambiguous-paths' && ACCEPTED_AMBIGUITIES.some((a) => p.message.includes(a));
const findings = problems.filter((p) => !accepted(p)).map((p) => ({
  rule: p.ruleId,
  severity: p.severity,
  message: p.message,
  where: p.location.map((l) => l.pointer).join(' '),
}));
process.stdout.write(JSON.stringify(findings));
