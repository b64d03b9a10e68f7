// Prints what Koa actually serves (the router's layers) next to the OpenAPI document, so a
// test can check that no served route is missing from the document. Run with Node 24.
import { createApp } from '../../api/app.ts';
import { buildOpenApi } from '../../api/openapi.ts';
import type { ApiServices } from '../../api/services.ts';

// Handlers never run here: the services are placeholders that only let the app assemble.
const placeholder = new Proxy({}, { get: () => placeholder }) as unknown as ApiServices;
const services = { ...placeholder, config: { trustProxyHops: 0 } } as unknown as ApiServices;
const { router, routes } = createApp(services);
const served = router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`));
const doc = buildOpenApi(routes, 'http://localhost', 'test');
const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
process.stdout.write(JSON.stringify({ served, documented }));
