// The api process's composition root: every cache, limiter, key and domain area is built here,
// once, and handed to the HTTP layer. Nothing below api/ builds its own.
import type { Client } from '@temporalio/client';
import type { Config } from '../domain/config.ts';
import type { Logger } from '../domain/log.ts';
import type { Core } from './core.ts';
import type { HotReads } from '../db/hot-reads.ts';
import type { InvalidationBus } from '../domain/cache/invalidation-bus.ts';
import type { ApiServices } from '../api/services.ts';
import { RevocationList } from '../domain/auth/revocations.ts';
import { JwtService } from '../domain/auth/jwt.ts';
import { ApiKeyService } from '../domain/auth/api-keys.ts';
import { IpRuleCache } from '../domain/org/ip-rule-cache.ts';
import { AuditWriter } from '../domain/audit/audit-writer.ts';
import { ActionAudit } from '../domain/audit/action-audit.ts';
import { TokenBuckets } from '../domain/ratelimit/token-bucket.ts';
import { WorkflowStarter } from '../domain/temporal/workflow-starter.ts';
import { VaultCommands } from '../domain/vaults/vault-commands.ts';
import { Mailer } from '../domain/mail/mailer.ts';

export type ApiWiring = { config: Config; log: Logger; core: Core; hot: HotReads; bus: InvalidationBus; temporal: Client };

/**
 * Builds the services. `startBus` runs once every cache has subscribed to the invalidation bus
 * and before anything is loaded, so no invalidation between load and subscription is missed.
 */
export async function buildApiServices(w: ApiWiring, startBus: () => Promise<void>): Promise<ApiServices> {
  const { config, log, core, hot, bus } = w;
  const db = () => core.db.em.fork();
  const revocations = new RevocationList(db, bus);
  const apiKeys = new ApiKeyService(core.pepper, hot, bus);
  const ipRules = new IpRuleCache(db, bus);
  await startBus();
  const jwt = new JwtService(config.jwtIssuer, core.jwtWrapKey, revocations);
  await jwt.init(db());
  const audit = new AuditWriter(hot, core.auditKey, log);
  const actionAudit = new ActionAudit(audit);
  const workflows = new WorkflowStarter(w.temporal, log);
  const mailer = new Mailer(workflows);
  return {
    config, log,
    audit, rateLimiter: new TokenBuckets(config.rateLimit.ratePerSecond, config.rateLimit.burst), jwt, apiKeys, ipRules, kms: core.kms,
    vaults: new VaultCommands({ db, hot, kms: core.kms, audit: actionAudit }),
    db: core.db, hot, em: db, revocations, actionAudit, workflows, mailer, pepper: core.pepper, auditKey: core.auditKey,
  };
}
