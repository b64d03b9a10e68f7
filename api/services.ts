// Everything a request handler may use, built once per api process.
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
import type { WorkflowStarter } from '../domain/temporal/workflow-starter.ts';
import type { TokenBuckets } from '../domain/ratelimit/token-bucket.ts';

export type ApiServices = {
  config: Config;
  db: MikroORM;
  /** Prepared statements for hot paths, on a pool of their own with generic plans. */
  hot: HotReads;
  /** A fresh EntityManager fork: use one per request or unit of work. */
  em: () => EntityManager;
  log: Logger;
  jwt: JwtService;
  revocations: RevocationList;
  apiKeys: ApiKeyService;
  ipRules: IpRuleCache;
  audit: AuditWriter;
  workflows: WorkflowStarter;
  rateLimiter: TokenBuckets;
  /** HMAC pepper for opaque tokens (API keys, reset and invitation tokens). */
  pepper: KeyObject;
  /** Key of the audit hash chain. */
  auditKey: KeyObject;
  /** The key backend (local or PKCS#11) that holds every vault key. */
  kms: Kms;
};
