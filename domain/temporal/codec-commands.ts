// The codec endpoint's commands (api/routes/admin/temporal-codec.ts): platform operators decode
// and encode Temporal payloads with the payload codec, from the `temporal` CLI (Bearer token) or
// from the Temporal UI in a browser (a codec link, domain/temporal/codec-links.ts). Every use is
// audited with the operator as actor, so who read which namespace's history is on record.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Payload } from '@temporalio/common';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { callerOf } from '../auth/principal.ts';
import type { OperatorAccount, PlatformOperators } from '../auth/platform-operators.ts';
import { badRequest, unauthorized } from '../errors.ts';
import { PayloadDecryptionError, type EncryptionCodec } from './payload-codec.ts';
import type { CodecLinks } from './codec-links.ts';

export const CODEC_BASE_PATH = '/v1/admin/temporal-codec';
export const CODEC_LINK_DEFAULT_MINUTES = 60;
export const CODEC_LINK_MAX_MINUTES = 12 * 60;

/** The caller's request: X-Namespace (optional), the payloads, and the codec link's token if one was used. */
export type CodecRequest = { namespace: string | undefined; payloads: Payload[]; linkToken?: string };
export type CodecLink = { codecEndpoint: string; expiresAt: Date };

export type TemporalCodecDeps = {
  db: () => EntityManager;
  operators: PlatformOperators;
  codec: EncryptionCodec;
  links: CodecLinks;
  audit: ActionAudit;
  /** The one namespace this service's workflows run in. */
  namespace: string;
  publicUrl: string;
};

export class TemporalCodecCommands {
  private readonly d: TemporalCodecDeps;

  constructor(deps: TemporalCodecDeps) {
    this.d = deps;
  }

  async decode(ctx: ActionContext, req: CodecRequest): Promise<Payload[]> {
    const operator = await this.operator(ctx, req.linkToken);
    this.checkNamespace(req.namespace);
    let out: Payload[];
    try {
      out = await this.d.codec.decode(req.payloads);
    } catch (e) {
      if (e instanceof PayloadDecryptionError) throw badRequest(`A payload could not be decrypted: ${e.message}`);
      throw e;
    }
    await this.record(ctx, 'temporal_codec.decode', operator, req);
    return out;
  }

  async encode(ctx: ActionContext, req: CodecRequest): Promise<Payload[]> {
    const operator = await this.operator(ctx, req.linkToken);
    this.checkNamespace(req.namespace);
    const out = await this.d.codec.encode(req.payloads);
    await this.record(ctx, 'temporal_codec.encode', operator, req);
    return out;
  }

  /** A codec endpoint URL for the Temporal UI, valid for `minutes`, usable by this operator only. */
  async createLink(ctx: ActionContext, minutes: number): Promise<CodecLink> {
    const operator = await this.d.operators.requireOperator(this.d.db(), callerOf(ctx));
    const expiresAt = new Date(Date.now() + minutes * 60_000);
    const token = this.d.links.mint(operator.id, expiresAt);
    await this.d.audit.record(ctx, 'temporal_codec.link_create', {
      resourceType: 'temporal_namespace', resourceId: this.d.namespace, details: { expires_at: expiresAt.toISOString() },
    });
    return { codecEndpoint: `${this.d.publicUrl}${CODEC_BASE_PATH}/links/${token}`, expiresAt };
  }

  /** The operator behind the request: its Bearer principal, or the codec link's. */
  private async operator(ctx: ActionContext, linkToken: string | undefined): Promise<OperatorAccount> {
    if (linkToken === undefined) return this.d.operators.requireOperator(this.d.db(), callerOf(ctx));
    const link = this.d.links.verify(linkToken);
    if (!link) throw unauthorized(`This codec link is invalid or expired: mint a new one (POST ${CODEC_BASE_PATH}/links)`);
    return this.d.operators.requireOperator(this.d.db(), { type: 'user', id: link.userId });
  }

  private checkNamespace(namespace: string | undefined): void {
    if (namespace !== undefined && namespace !== this.d.namespace) {
      throw badRequest(`This codec serves the Temporal namespace ${JSON.stringify(this.d.namespace)} only (X-Namespace: ${JSON.stringify(namespace)})`);
    }
  }

  private async record(ctx: ActionContext, action: string, operator: OperatorAccount, req: CodecRequest): Promise<void> {
    await this.d.audit.record(ctx, action, {
      actor: { type: 'user', id: operator.id, orgId: operator.orgId ?? '' },
      orgId: operator.orgId,
      resourceType: 'temporal_namespace',
      resourceId: this.d.namespace,
      details: { payloads: req.payloads.length, via: req.linkToken === undefined ? 'bearer' : 'codec_link' },
    });
  }
}
