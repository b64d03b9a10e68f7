// Starts the HTTP api: services, caches, migrations, then the listener. Returns a stopper.
import http from 'node:http';
import { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { InFlight } from '../api/in-flight.ts';
import { ConnectionDrain } from '../api/connection-drain.ts';
import type { Config } from '../domain/config.ts';
import { createLogger } from '../domain/log.ts';
import { logExemptions } from '../domain/net/outbound/exemptions.ts';
import { openCore } from './core.ts';
import { migrate } from '../db/migrate.ts';
import { checkRootKey } from '../domain/auth/root-key-check.ts';
import { hotReads } from '../db/hot-reads.ts';
import { InvalidationBus } from '../domain/cache/invalidation-bus.ts';
import { connectTemporal } from '../domain/temporal/connection.ts';
import { temporalClientInterceptors } from '../domain/observability/tracing.ts';
import { temporalDataConverter } from '../domain/temporal/payload-codec.ts';
import { createApp } from '../api/app.ts';
import { buildApiServices } from './api-services.ts';
import { DRAIN_TIMEOUT_MS } from './main-guard.ts';

export type RunningApi = { url: string; stop: () => Promise<void> };

/**
 * `workerConnection`: the Temporal connection of a worker in this process, for eager workflow starts.
 * `reusePort`: bind the port beside other api processes (workers/api-cluster.ts).
 */
export async function startApi(config: Config, databaseUrl: string, temporalAddress: string, workerConnection?: NativeConnection, opts: { reusePort?: boolean } = {}): Promise<RunningApi> {
  const log = createLogger(config.logLevel, 'api');
  logExemptions(config.outboundAllowCidrs, log);
  const core = await openCore(config, databaseUrl);
  const em = () => core.db.em.fork();
  await migrate(em(), (m) => log.info(m));
  await checkRootKey(em(), core.jwtWrapKey); // a wrong ROOT_KEY stops the start here
  const bus = new InvalidationBus(databaseUrl, (m) => log.warn(m));
  const hot = hotReads(databaseUrl);
  // The same codec as the worker's: what the api starts is sealed before it reaches history.
  const dataConverter = temporalDataConverter(core.temporalCodecKey);
  const temporal = await connectTemporal(temporalAddress, config.temporalNamespace, dataConverter);
  const colocatedTemporal = workerConnection ? new Client({ connection: workerConnection, namespace: config.temporalNamespace, dataConverter, interceptors: temporalClientInterceptors() }) : undefined;
  // Caches subscribe to the bus before it starts, so no invalidation is missed.
  const services = await buildApiServices({ config, log, core, hot, bus, temporal, colocatedTemporal }, () => bus.start());
  const { audit } = services;
  const { app } = createApp(services);
  const inFlight = new InFlight();
  const drain = new ConnectionDrain();
  const handle = app.callback();
  const server = http.createServer((req, res) => {
    drain.admit(res);
    void inFlight.track(handle(req, res));
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // exclusive: a cluster child binds its own socket rather than asking the primary for one.
    server.listen({ port: config.port, host: config.host, ...(opts.reusePort ? { reusePort: true, exclusive: true } : {}) }, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.info('api listening', { url });
  return {
    url,
    stop: async () => {
      await drain.close(server);
      if (!(await inFlight.settled(DRAIN_TIMEOUT_MS))) log.warn('stopping with requests still running', { running: inFlight.count });
      await audit.drain().catch(() => {});
      await services.quotaMeter?.stop(); // the counts of this process, reported
      await services.creditMeter?.stop(); // and its credit spending
      await services.rateLimits.close();
      await hot.close();
      await bus.close();
      await temporal.connection.close();
      await core.kms.close();
      await core.db.close();
    },
  };
}
