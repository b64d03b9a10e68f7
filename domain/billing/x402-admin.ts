// The platform's x402 settings for operators (spec §4.14 `GET/PUT /v1/admin/x402`): a change is a
// merge over what is stored, audited in the operator's organization, and reaches every api
// process within SETTINGS_TTL_MS. Payments are taken only while the settings are switched on
// with a recipient and a facilitator, so switching on without them is refused.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { PlatformOperators } from '../auth/platform-operators.ts';
import { callerOf } from '../auth/principal.ts';
import { badRequest } from '../errors.ts';
import { REQUEST_QUOTAS } from './request-quotas.ts';
import type { X402Settings } from './x402-requirements.ts';
import { loadX402Settings, saveX402Settings } from './x402-repository.ts';
import type { X402Payments } from './x402-payments.ts';

export type X402SettingsChange = Partial<X402Settings> & { freeTierLimit?: number };

export type X402SettingsView = X402Settings & { scheme: 'exact'; freeTierLimit: number };

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export class X402Admin {
  private readonly d: { db: () => EntityManager; audit: ActionAudit; operators: PlatformOperators; payments: X402Payments };

  constructor(deps: { db: () => EntityManager; audit: ActionAudit; operators: PlatformOperators; payments: X402Payments }) {
    this.d = deps;
  }

  async get(ctx: ActionContext): Promise<X402SettingsView> {
    const em = this.d.db();
    await this.d.operators.requireOperator(em, callerOf(ctx));
    return view(await loadX402Settings(em));
  }

  async update(ctx: ActionContext, change: X402SettingsChange): Promise<X402SettingsView> {
    const em = this.d.db();
    const operator = await this.d.operators.requireOperator(em, callerOf(ctx));
    const { freeTierLimit, ...rest } = change;
    // The free tier's quota is the tier table's (per organization: /v1/admin/orgs/{id}/limits);
    // echoing it back unchanged, as a client that PUTs what it GOT does, is fine.
    if (freeTierLimit !== undefined && freeTierLimit !== REQUEST_QUOTAS.free) {
      throw badRequest(`free_tier_limit is the free tier's monthly quota (${REQUEST_QUOTAS.free}); set an organization's own with PUT /v1/admin/orgs/{org_id}/limits`);
    }
    const next: X402Settings = { ...(await loadX402Settings(em)), ...rest };
    if (next.network.startsWith('eip155:')) {
      if (next.payTo !== null && !EVM_ADDRESS.test(next.payTo)) throw badRequest('pay_to must be an EVM address (0x and 40 hex digits) on an eip155 network');
      if (!EVM_ADDRESS.test(next.asset)) throw badRequest('asset must be the token contract address on an eip155 network');
    }
    if (next.enabled && (next.payTo === null || next.facilitatorUrl === null)) {
      throw badRequest('x402 can be enabled only with pay_to (payment_address) and facilitator_url set');
    }
    await saveX402Settings(em, next, operator.id);
    this.d.payments.invalidate();
    await this.d.audit.record(ctx, 'admin.x402_updated', {
      resourceType: 'x402_config', resourceId: 'x402',
      details: { enabled: next.enabled, pay_to: next.payTo, network: next.network, asset: next.asset, facilitator_url: next.facilitatorUrl },
    });
    return view(next);
  }
}

const view = (s: X402Settings): X402SettingsView => ({ ...s, scheme: 'exact', freeTierLimit: REQUEST_QUOTAS.free ?? 0 });
