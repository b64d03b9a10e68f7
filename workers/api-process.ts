// Starts the HTTP api: services, caches, migrations, then the listener. Returns a stopper.
import http from 'node:http';
import { InFlight } from '../api/in-flight.ts';
import type { Config } from '../domain/config.ts';
import { createLogger } from '../domain/log.ts';
import { openCore } from './core.ts';
import { migrate } from '../db/migrate.ts';
import { hotReads } from '../db/hot-reads.ts';
import { InvalidationBus } from '../domain/cache/invalidation-bus.ts';
import { RevocationList } from '../domain/auth/revocations.ts';
import { JwtService } from '../domain/auth/jwt.ts';
import { ApiKeyService } from '../domain/auth/api-keys.ts';
import { IpRuleCache } from '../domain/org/ip-rule-cache.ts';
import { AuditWriter } from '../domain/audit/audit-writer.ts';
import { TokenBuckets } from '../domain/ratelimit/token-bucket.ts';
import { WorkflowStarter, connectTemporal } from '../domain/temporal/workflow-starter.ts';
import { createApp } from '../api/app.ts';
import type { ApiServices } from '../api/services.ts';

export type RunningApi = { url: string; stop: () => Promise<void> };

export async function startApi(config: Config, databaseUrl: string, temporalAddress: string): Promise<RunningApi> {
  const log = createLogger(config.logLevel, 'api');
  const core = await openCore(config, databaseUrl);
  const em = () => core.db.em.fork();
  await migrate(em(), (m) => log.info(m));
  const bus = new InvalidationBus(databaseUrl, (m) => log.warn(m));
  const revocations = new RevocationList(em, bus);
  const hot = hotReads(databaseUrl);
  const apiKeys = new ApiKeyService(core.pepper, hot, bus);
  const ipRules = new IpRuleCache(em, bus);
  await bus.start();
  const jwt = new JwtService(config.jwtIssuer, core.jwtWrapKey, revocations);
  await jwt.init(em());
  const temporal = await connectTemporal(temporalAddress, config.temporalNamespace);
  const audit = new AuditWriter(hot, core.auditKey, log);
  const services: ApiServices = {
    config, db: core.db, hot, em, log, jwt, revocations, apiKeys, ipRules, audit,
    workflows: new WorkflowStarter(temporal, log),
    rateLimiter: new TokenBuckets(config.rateLimit.ratePerSecond, config.rateLimit.burst),
    pepper: core.pepper, auditKey: core.auditKey, kms: core.kms,
  };
  const { app } = createApp(services);
  const inFlight = new InFlight();
  const handle = app.callback();
  const server = http.createServer((req, res) => void inFlight.track(handle(req, res)));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.info('api listening', { url });
  return {
    url,
    stop: async () => {
      await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeIdleConnections(); });
      if (!(await inFlight.settled(20_000))) log.warn('stopping with requests still running', { running: inFlight.count });
      await audit.drain().catch(() => {});
      await hot.close();
      await bus.close();
      await temporal.connection.close();
      await core.kms.close();
      await core.db.close();
    },
  };
}
