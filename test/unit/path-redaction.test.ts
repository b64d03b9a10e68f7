// Paths as they are recorded (api/path-redaction.ts): the parameters a route declares credentials
// are masked in every path form, also on paths no route took; nothing else is.
import { PathRedactor, REDACTED_SEGMENT as R } from '../../api/path-redaction.ts';
import { allRoutes } from '../../api/routes/index.ts';

const routes = allRoutes();
const paths = new PathRedactor(routes);
const ID = '0b0c7f3e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const routeOf = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!;

test('both webhook trigger forms mask the token, with or without the matched route', () => {
  const token = 'whk_AbCdEf0123456789';
  for (const [template, path, recorded] of [
    ['/v1/automations/webhook/:id/:token', `/v1/automations/webhook/${ID}/${token}`, `/v1/automations/webhook/${ID}/${R}`],
    ['/v1/automations/:id/webhook/:token', `/v1/automations/${ID}/webhook/${token}`, `/v1/automations/${ID}/webhook/${R}`],
  ] as const) {
    expect(paths.redact(path, routeOf('POST', template))).toBe(recorded);
    expect(paths.redact(path)).toBe(recorded); // e.g. a GET: 405, no route took it
  }
});

test('every credential route is masked; ids and secret paths are not', () => {
  expect(paths.redact('/v1/agent-enrollments/enr_xyz/deny')).toBe(`/v1/agent-enrollments/${R}/deny`);
  expect(paths.redact('/v1/agent-enrollments/enr_xyz')).toBe(`/v1/agent-enrollments/${R}`);
  expect(paths.redact('/v1/admin/temporal-codec/links/tcl_xyz/decode')).toBe(`/v1/admin/temporal-codec/links/${R}/decode`);
  expect(paths.redact(`/v1/share/${ID}`)).toBe(`/v1/share/${R}`);
  expect(paths.redact(`/v1/shares/${ID}/access`)).toBe(`/v1/shares/${R}/access`);
  expect(paths.redact('/v1/shares/inbound')).toBe('/v1/shares/inbound');
  expect(paths.redact(`/v1/vaults/${ID}/secrets/db/password`)).toBe(`/v1/vaults/${ID}/secrets/db/password`);
  expect(paths.redact(`/v1/automations/${ID}/runs`)).toBe(`/v1/automations/${ID}/runs`);
});

test('a path no route fits keeps only the segments routes spell out', () => {
  expect(paths.redact(`/v1/automations/webhook/${ID}/whk_secret/extra`)).toBe(`/v1/automations/webhook/${R}/${R}/${R}`);
  expect(paths.redact('/v1/nothing-here')).toBe(`/v1/${R}`);
  expect(paths.redact('/')).toBe('/');
});

test('every route with a credential in its path declares it, and declares only its own parameters', () => {
  const CREDENTIAL_PARAMS = ['token', 'share_id'];
  for (const r of routes) {
    const params = r.path.split('/').filter((s) => s.startsWith(':') || s.startsWith('*')).map((s) => s.slice(1));
    for (const p of params) if (CREDENTIAL_PARAMS.includes(p)) expect({ route: `${r.method} ${r.path}`, declared: r.secretParams?.includes(p) ?? false }).toEqual({ route: `${r.method} ${r.path}`, declared: true });
    for (const s of r.secretParams ?? []) expect(params).toContain(s);
  }
});

test('long paths are cut after masking', () => {
  const long = `/v1/vaults/${ID}/secrets/${'a/'.repeat(400)}b`;
  const out = paths.redact(long);
  expect(out.length).toBeLessThanOrEqual(513);
  expect(out.endsWith('…')).toBe(true);
});
