// Key rotation benchmark (part of `npm run bench`, BENCH_ONLY=rotation alone): versions per second
// of both rotation jobs on the server's key backend (KMS_BACKEND as the server runs it: start the
// bench with the PKCS#11 variables set to measure the HSM). For each job, a vault of
// BENCH_ROTATION_SECRETS × BENCH_ROTATION_VERSIONS versions is written, the job started, and its
// status polled every 5 ms through the api until processed == total: the rate is versions over
// the time from the 202 to that poll (the job's grace period and finish come after and are not in it).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { api } from './bench-http.ts';
import { cmekEncrypt, fingerprintOf } from '../helpers/cmek-client.ts';

const SECRETS = Number(process.env.BENCH_ROTATION_SECRETS ?? 50);
const VERSIONS = Number(process.env.BENCH_ROTATION_VERSIONS ?? 20);
const POLL_MS = 5;
const LIMIT_MS = 300_000;

const sleep = (t: number) => new Promise((r) => setTimeout(r, t));
/** Writes the vault's versions, `SECRETS` writers side by side, each through its versions in order. */
async function fill(baseUrl: string, token: string, vaultId: string, value: () => string): Promise<void> {
  await Promise.all(Array.from({ length: SECRETS }, async (_, i) => {
    for (let v = 0; v < VERSIONS; v++) await api(baseUrl, 'PUT', `/v1/vaults/${vaultId}/secrets/bench/s${i}`, token, { value: value() });
  }));
}

/** Starts a job (202), then polls it until every version is done: versions per second. */
async function measure(baseUrl: string, token: string, start: () => Promise<{ id: string; statusUrl: string }>): Promise<{ total: number; seconds: number }> {
  const t0 = performance.now();
  const job = await start();
  const deadline = Date.now() + LIMIT_MS;
  for (;;) {
    const j = await api(baseUrl, 'GET', job.statusUrl, token);
    if (j.status === 'failed') throw new Error(`rotation job ${job.id} failed: ${j.error}`);
    if (j.total_secrets > 0 && j.processed >= j.total_secrets) return { total: j.total_secrets, seconds: (performance.now() - t0) / 1000 };
    if (Date.now() > deadline) throw new Error(`rotation job ${job.id} not done within ${LIMIT_MS / 1000} s`);
    await sleep(POLL_MS);
  }
}

/** The rotation section of the report (markdown). Needs the stack's database (to put the org on the Business plan). */
export async function benchKeyRotation(baseUrl: string, databaseUrl: string | undefined, log: (m: string) => void): Promise<string> {
  if (!databaseUrl) return 'Rotation section skipped: it sets the organization\'s plan in Postgres; with BENCH_URL, set BENCH_DATABASE_URL too.';
  const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const email = `bench-rotation-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`;
    const token = (await api(baseUrl, 'POST', '/v1/auth/signup', null, { email, password: `Bench-${randomBytes(12).toString('base64url')}-1a` })).access_token as string;
    const orgId = (await api(baseUrl, 'GET', '/v1/auth/me', token)).org_id as string;
    await db.query("UPDATE organizations SET billing_tier = 'business' WHERE id = $1", [orgId]); // CMEK and room for the versions
    const backend = (await api(baseUrl, 'GET', '/v1/health/hsm', null)).backend as string;
    const rows: string[] = [];

    const vaultId = (await api(baseUrl, 'POST', '/v1/vaults', token, { name: 'bench-rotate-key' })).id as string;
    log(`rotation: writing ${SECRETS * VERSIONS} versions, then rotating the vault's key`);
    await fill(baseUrl, token, vaultId, () => `sk-${randomBytes(24).toString('hex')}`);
    const vk = await measure(baseUrl, token, async () => {
      const j = await api(baseUrl, 'POST', `/v1/vaults/${vaultId}/rotate-key`, token);
      return { id: j.id, statusUrl: `/v1/vaults/${vaultId}/rotate-key/${j.id}` };
    });
    rows.push(`| vault key (re-wrap each data key) | ${backend} | ${vk.total} | ${vk.seconds.toFixed(2)} | ${(vk.total / vk.seconds).toFixed(0)} |`);

    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const cmekVault = (await api(baseUrl, 'POST', '/v1/vaults', token, { name: 'bench-cmek' })).id as string;
    await api(baseUrl, 'POST', `/v1/vaults/${cmekVault}/cmek`, token, { fingerprint: fingerprintOf(oldKey) });
    log(`rotation: writing ${SECRETS * VERSIONS} CMEK versions, then rotating the customer key`);
    await fill(baseUrl, token, cmekVault, () => cmekEncrypt(oldKey, `sk-${randomBytes(24).toString('hex')}`));
    const ck = await measure(baseUrl, token, async () => {
      const j = await api(baseUrl, 'POST', `/v1/vaults/${cmekVault}/cmek-rotate`, token, { new_fingerprint: fingerprintOf(newKey) },
        { 'x-cmek-old-key': oldKey.toString('base64'), 'x-cmek-new-key': newKey.toString('base64') });
      return { id: j.id, statusUrl: `/v1/vaults/${cmekVault}/cmek-rotate/${j.id}` };
    });
    rows.push(`| CMEK (decrypt + re-encrypt each value) | ${backend} | ${ck.total} | ${ck.seconds.toFixed(2)} | ${(ck.total / ck.seconds).toFixed(0)} |`);

    return [
      `Key rotation jobs: versions done per second, from the 202 to the poll that sees processed == total (${POLL_MS} ms polls)`,
      '',
      '| job | key backend | versions | seconds | versions/s |',
      '| --- | --- | ---: | ---: | ---: |',
      ...rows,
    ].join('\n');
  } finally {
    await db.end();
  }
}
