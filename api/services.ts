// What the HTTP layer is given, built once per api process in workers/api-services.ts: the
// pipeline's stages get what they check with, and handlers get one object per domain area whose
// methods are the commands. Handlers never see a pool, a key or a cache.
import type { MikroORM, EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../domain/config.ts';
import type { KeyObject } from 'node:crypto';
import type { HotReads } from '../db/hot-reads.ts';
import type { Kms } from '../domain/crypto/kms/kms.ts';
import type { Logger } from '../domain/log.ts';
import type { JwtService } from '../domain/auth/jwt.ts';
import type { RevocationList } from '../domain/auth/revocations.ts';
import type { ApiKeyService } from '../domain/auth/api-keys.ts';
import type { IpRuleCache } from '../domain/org/ip-rule-cache.ts';
import type { AuditWriter } from '../domain/audit/audit-writer.ts';
import type { ActionAudit } from '../domain/audit/action-audit.ts';
import type { WorkflowStarter } from '../domain/temporal/workflow-starter.ts';
import type { TokenBuckets } from '../domain/ratelimit/token-bucket.ts';
import type { Mailer } from '../domain/mail/mailer.ts';
import type { VaultCommands } from '../domain/vaults/vault-commands.ts';

export type ApiServices = {
  config: Config;
  log: Logger;

  // Pipeline stages (api/pipeline/*).
  audit: AuditWriter;
  rateLimiter: TokenBuckets;
  jwt: JwtService;
  apiKeys: ApiKeyService;
  ipRules: IpRuleCache;
  /** The key backend, for /v1/health/hsm. */
  kms: Kms;

  // Domain areas: one object per area, its methods are the commands.
  vaults: VaultCommands;

  // Legacy: still used by handlers not yet moved onto domain commands (issue 8 removes them).
  db: MikroORM;
  hot: HotReads;
  em: () => EntityManager;
  revocations: RevocationList;
  actionAudit: ActionAudit;
  workflows: WorkflowStarter;
  mailer: Mailer;
  pepper: KeyObject;
  auditKey: KeyObject;
};
