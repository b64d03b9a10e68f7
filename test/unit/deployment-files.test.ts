// The deployment files, read as a new user would run them (issue 30 §3). No Docker engine here,
// so the compose file is parsed with `yaml` (merge keys on, as compose reads them) and checked for
// the shape it promises: PostgreSQL, a Temporal server on it with its schema set up by the admin
// tools, the UI, two api replicas behind a proxy, two workers, health checks, the root key on a
// volume; and every variable of docs/configuration.md's service table reaching the containers.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '..', '..');
const read = (f: string) => fs.readFileSync(path.join(root, f), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, any>; volumes: Record<string, unknown>; configs: Record<string, any> };
const services = compose.services;

/** The variables the configuration page's service table names (`A` / `B` rows name two). */
function serviceVariables(): string[] {
  const doc = read('docs/configuration.md');
  const section = doc.slice(doc.indexOf('## The service'), doc.indexOf('\n## ', doc.indexOf('## The service') + 1));
  return [...section.matchAll(/^\| ((?:`[A-Z0-9_]+`(?: \/ )?)+) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([A-Z0-9_]+)`/g)].map((x) => x[1]!));
}

test('the shape: PostgreSQL, Temporal on it (schema set up, namespace created), its UI, 2 api replicas behind a proxy, 2 workers', () => {
  expect(Object.keys(services).sort()).toEqual(['api', 'postgres', 'proxy', 'temporal', 'temporal-namespace', 'temporal-schema', 'temporal-ui', 'worker']);
  expect(services.postgres.image).toMatch(/^postgres:\d/);
  expect(services['temporal-schema'].image).toMatch(/^temporalio\/admin-tools:/);
  expect(services['temporal-schema'].command.join('\n')).toMatch(/temporal-sql-tool --plugin postgres12[\s\S]*setup-schema[\s\S]*update-schema/);
  expect(services.temporal.image).toMatch(/^temporalio\/server:/);
  expect(services.temporal.environment).toEqual(expect.objectContaining({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' }));
  expect(services.temporal.depends_on['temporal-schema'].condition).toBe('service_completed_successfully');
  expect(services['temporal-namespace'].command.join('\n')).toContain('temporal operator namespace create');
  expect(services['temporal-ui'].image).toMatch(/^temporalio\/ui:/);
  for (const name of ['api', 'worker']) {
    expect(services[name].deploy.replicas).toBe(2);
    expect(services[name].depends_on['temporal-namespace'].condition).toBe('service_completed_successfully');
  }
  expect(services.api.command).toEqual(['node', 'workers/api.ts']);
  expect(services.worker.command).toEqual(['node', 'workers/worker.ts']);
  // The api replicas publish no port of their own: the proxy does, and balances over them.
  expect(services.api.ports).toBeUndefined();
  expect(services.proxy.ports).toEqual(['8080:8080']);
  const haproxy = compose.configs[services.proxy.configs[0].source].content as string;
  expect(haproxy).toMatch(/balance roundrobin/);
  expect(haproxy).toMatch(/server-template api \d+ api:8080/);
  expect(haproxy).toMatch(/option httpchk GET \/v1\/health/);
});

test('health checks on every long-running service; the metrics port on the api and the worker', () => {
  for (const name of ['postgres', 'temporal', 'api', 'worker', 'proxy']) expect(services[name].healthcheck.test.length).toBeGreaterThan(1);
  expect(services.api.healthcheck.test.join(' ')).toContain('/v1/health');
  expect(services.worker.healthcheck.test.join(' ')).toContain('METRICS_PORT');
  for (const name of ['api', 'worker']) expect(services[name].environment.METRICS_PORT).toMatch(/^\$\{METRICS_PORT:-\d+\}$/);
});

test('the root key lives on one named volume that every api and worker container mounts at DATA_DIR', () => {
  expect(Object.keys(compose.volumes)).toContain('vault-keys');
  for (const name of ['api', 'worker']) {
    expect(services[name].volumes).toEqual(['vault-keys:/data']);
    expect(services[name].environment.DATA_DIR).toBe('/data');
    // Optional: a ROOT_KEY from a secret store wins; no key is ever generated in the compose file.
    expect(services[name].environment.ROOT_KEY).toBe('${ROOT_KEY:-}');
  }
  expect(read('docker-compose.yml')).not.toMatch(/openssl rand/);
});

test('every variable on the configuration page reaches the api and worker containers', () => {
  const names = serviceVariables();
  expect(names).toEqual(expect.arrayContaining(['PLATFORM_ADMIN_EMAILS', 'AI_PROVIDER', 'AI_API_KEY', 'PKCS11_MODULE', 'PKCS11_PIN', 'RATE_LIMIT_BURST', 'ROOT_KEY']));
  for (const name of ['api', 'worker']) {
    const missing = names.filter((v) => !(v in services[name].environment));
    expect({ service: name, missing }).toEqual({ service: name, missing: [] });
  }
});

test('every ${…} in the compose file is one compose reads (NAME, NAME:-default, NAME:?message), and $$ escapes the shell', () => {
  const text = read('docker-compose.yml').replace(/\$\$/g, '');
  const refs = [...text.matchAll(/\$(\{[^}]*\}|[A-Za-z_]\w*)?/g)].map((m) => m[0]);
  expect(refs.filter((r) => !/^\$\{[A-Z][A-Z0-9_]*(?::?[-?][^}]*)?\}$/.test(r))).toEqual([]);
});

test('the image compiles native modules in a build stage (python3, make, g++) and runs from a slim one', () => {
  const dockerfile = read('Dockerfile');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const build = stages.find((s) => / AS build\b/.test(s.split('\n')[0]!))!;
  const runtime = stages.find((s) => / AS runtime\b/.test(s.split('\n')[0]!))!;
  expect(build).toMatch(/apt-get install[^\n]*python3[^\n]*make[^\n]*g\+\+/);
  expect(build).toMatch(/npm ci --omit=dev/);
  expect(build).toContain('pkcs11js/build/Release/pkcs11.node');
  expect(runtime).not.toMatch(/npm (ci|install)|apt-get install/);
  expect(runtime).toContain('COPY --from=build /app/node_modules ./node_modules');
  expect(stages.at(-1)).toBe(runtime); // the image built by default is the runtime one
});
