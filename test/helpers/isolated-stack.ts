// An api and a worker in processes of their own, against a fresh database on the shared PostgreSQL
// and a fresh namespace on the shared Temporal server, so the test stack's own worker never picks
// up their work: for tests that kill a worker with SIGKILL and start another.
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { msToTs } from '@temporalio/common/lib/time.js';
import { Connection, Client } from '@temporalio/client';
import { call, db } from './api.ts';
import { freePort, makeDataDir, spawnEntry, stopGroup, waitFor } from './stack.ts';
import { TcpProxy } from './tcp-proxy.ts';
import { ensureSearchAttributes } from '../../domain/temporal/search-attributes.ts';
import { VAULT_SEARCH_ATTRIBUTES } from '../../domain/temporal/search-attribute-keys.ts';

export class IsolatedStack {
  readonly database: string;
  readonly namespace: string;
  env: Record<string, string> = {};
  dataDir = '';
  apiUrl = '';
  /** The stack's own database. */
  pool!: pg.Pool;
  /** The stack's own database (as the test reaches it directly). */
  databaseUrl!: string;
  temporal!: Client;
  api: ChildProcess | undefined;
  worker: ChildProcess | undefined;
  dbProxy: TcpProxy | undefined;
  temporalProxy: TcpProxy | undefined;

  constructor(tag: string) {
    const suffix = Math.random().toString(36).slice(2, 10);
    this.database = `${tag}_${suffix}`;
    this.namespace = `${tag}-${suffix}`;
  }

  /** With `proxies`, the api and worker reach PostgreSQL and Temporal through TcpProxy (dbProxy, temporalProxy), which a test can cut. */
  async start(extraEnv: Record<string, string> = {}, opts: { proxies?: boolean } = {}): Promise<void> {
    await db().query(`CREATE DATABASE ${this.database}`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${this.database}`;
    let temporalAddress = process.env.TEST_TEMPORAL_ADDRESS!;
    let processUrl = url.toString();
    if (opts.proxies) {
      const socketDir = url.searchParams.get('host');
      this.dbProxy = await TcpProxy.start(socketDir ? { path: `${socketDir}/.s.PGSQL.${url.port}` } : { host: url.hostname, port: Number(url.port) });
      const proxied = new URL(url.toString());
      proxied.searchParams.delete('host');
      proxied.hostname = '127.0.0.1';
      proxied.port = String(this.dbProxy.port);
      processUrl = proxied.toString();
      const [host, port] = temporalAddress.split(':');
      this.temporalProxy = await TcpProxy.start({ host: host!, port: Number(port) });
      temporalAddress = `127.0.0.1:${this.temporalProxy.port}`;
    }
    this.databaseUrl = url.toString();
    this.pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
    this.pool.on('error', () => {}); // an idle client ended by the database's drop at stop()
    this.temporal = new Client({ connection: await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! }), namespace: this.namespace });
    await this.temporal.connection.workflowService.registerNamespace({ namespace: this.namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    // The frontend learns of a new namespace, and of search attributes added to it, within a few
    // seconds. The worker registers them too, but the api can take a trigger before it has: wait
    // until the namespace takes a start that carries every attribute a run's start carries.
    await waitFor('the new namespace', 30_000, async () => {
      try {
        await ensureSearchAttributes(this.temporal, this.namespace);
        const h = await this.temporal.workflow.start('probe', {
          taskQueue: 'probe', workflowId: `probe-${this.namespace}`,
          typedSearchAttributes: VAULT_SEARCH_ATTRIBUTES.map((key) => ({ key, value: 'probe' })),
        });
        await h.terminate('probe');
        return true;
      } catch { return undefined; }
    });
    this.dataDir = makeDataDir(`vault-${this.namespace}-`);
    const port = await freePort();
    this.env = {
      DATABASE_URL: processUrl, TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_NAMESPACE: this.namespace,
      DATA_DIR: this.dataDir, PORT: String(port), KMS_BACKEND: 'local', LOG_LEVEL: 'warn',
      RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000', ...extraEnv,
    };
    this.worker = this.startWorker(); // migrates the new database
    const api = spawnEntry('workers/api.ts', this.env, path.join(this.dataDir, 'api.log'));
    this.api = api;
    this.apiUrl = `http://127.0.0.1:${port}`;
    await waitFor('isolated api', 120_000, async () => {
      try { return (await fetch(`${this.apiUrl}/v1/health`)).ok ? true : undefined; } catch { return undefined; }
    }, () => api.exitCode !== null);
  }

  /**
   * Signs up the stack's one owner (its organization on the Team plan, for the agents and
   * automations tests create) and an agent of it; the owner's access token and the agent's id.
   */
  async ownerWithAgent(): Promise<{ token: string; agentId: string }> {
    const signup = await call('POST', '/v1/auth/signup', { base: this.apiUrl, body: { email: `${this.namespace}@example.com`, password: 'correct-horse-battery' } });
    if (signup.status !== 200) throw new Error(`signup: ${signup.status} ${signup.text}`);
    await this.pool.query("UPDATE organizations SET billing_tier = 'team'");
    const agent = await call('POST', '/v1/agents', { base: this.apiUrl, token: signup.body.access_token, body: { name: `${this.namespace}-bot` } });
    if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${agent.text}`);
    return { token: signup.body.access_token, agentId: agent.body.agent_id };
  }

  startWorker(): ChildProcess {
    this.worker = spawnEntry('workers/worker.ts', this.env, path.join(this.dataDir, 'worker.log'));
    return this.worker;
  }

  /** SIGKILL of the worker's whole process group; resolves once it is gone. */
  async killWorker(): Promise<void> {
    const w = this.worker!;
    process.kill(-w.pid!, 'SIGKILL');
    await new Promise<void>((resolve) => (w.exitCode !== null || w.signalCode !== null ? resolve() : w.once('exit', () => resolve())));
  }

  async stop(): Promise<void> {
    for (const p of [this.api, this.worker]) if (p) await stopGroup(p);
    await this.dbProxy?.stop();
    await this.temporalProxy?.stop();
    await this.pool?.end();
    await db().query(`DROP DATABASE IF EXISTS ${this.database} WITH (FORCE)`).catch(() => undefined);
    await this.temporal?.connection.close();
    // Its root key is in there: nothing of a test stack stays behind unless asked for.
    if (this.dataDir && process.env.KEEP_TEST_DATA !== '1') fs.rmSync(this.dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}
