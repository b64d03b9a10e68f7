// The EVM chains the service knows (spec §2.8, §4.1, §4.14): anyone may read the enabled ones,
// platform operators manage all of them. Each change owns its transaction and its audit record.
// A chain's rpc_url may be pinned per deployment by CHAIN_RPC_URLS (domain/config.ts): the pin
// is applied on every read and never stored, so a provider key kept in the environment stays out
// of the database, its backups and the audit log; while a chain is pinned, the API refuses to set
// a different rpc_url for it (409) rather than store one that would silently not apply.
import { ForeignKeyConstraintViolationException, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { PlatformOperators } from '../auth/platform-operators.ts';
import type { Logger } from '../log.ts';
import { callerOf } from '../auth/principal.ts';
import { Problem, invalidField, notFound } from '../errors.ts';
import { chainIdProblem, chainNameProblem, endpointOrigin, endpointUrlProblem, parseChainIdentifier, type EndpointKind } from './chain-fields.ts';
import {
  UNIQUE_FIELDS, deleteChain, findChain, insertChain, listChains, unknownChainNames, updateChain,
  type ChainChanges, type ChainRow,
} from './chain-repository.ts';
import { effectiveRpcUrl } from './effective-rpc.ts';

export type ChainDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  operators: PlatformOperators;
  /** CHAIN_RPC_URLS: chain name → rpc_url for this deployment. */
  rpcOverrides: ReadonlyMap<string, string>;
  log: Logger;
};

/** A chain as the service uses it: rpc_url is the effective one (the pin, if any). */
export type ChainView = ChainRow & { rpc_url_pinned: boolean };

export type NewChainInput = {
  name: string; chain_id: number; display_name?: string;
  rpc_url?: string | null; ws_url?: string | null; explorer_url?: string | null;
  native_currency?: string; is_testnet?: boolean; is_enabled?: boolean;
};

/** A PUT: the changeable fields, plus name and chain_id, accepted only unchanged (clients send back what they read). */
export type ChainUpdateInput = ChainChanges & { name?: string; chain_id?: number };

type UrlField = 'rpc_url' | 'ws_url' | 'explorer_url';
const URL_FIELDS: [UrlField, EndpointKind][] = [['rpc_url', 'rpc'], ['ws_url', 'ws'], ['explorer_url', 'explorer']];

export class ChainCommands {
  private readonly d: ChainDeps;

  constructor(deps: ChainDeps) {
    this.d = deps;
  }

  /** The enabled chains (the public list). */
  async list(): Promise<ChainView[]> {
    return (await listChains(this.d.db(), { enabledOnly: true })).map((r) => this.view(r));
  }

  /** One enabled chain; a disabled one is, to the public, no chain at all. */
  async get(identifier: string): Promise<ChainView> {
    const row = await this.find(this.d.db(), identifier);
    if (!row || !row.is_enabled) throw notFound('Chain');
    return this.view(row);
  }

  /** Every chain, disabled ones included (operators). */
  async adminList(ctx: ActionContext): Promise<ChainView[]> {
    const em = this.d.db();
    await this.d.operators.requireOperator(em, callerOf(ctx));
    return (await listChains(em, { enabledOnly: false })).map((r) => this.view(r));
  }

  async create(ctx: ActionContext, input: NewChainInput): Promise<ChainView> {
    const em = this.d.db();
    await this.d.operators.requireOperator(em, callerOf(ctx));
    const nameProblem = chainNameProblem(input.name);
    if (nameProblem) throw invalidField('name', nameProblem);
    const idProblem = chainIdProblem(input.chain_id);
    if (idProblem) throw invalidField('chain_id', idProblem);
    checkUrls(input);
    this.checkPin(input.name, input.rpc_url);
    const row = await this.write(() => em.transactional((tx) => insertChain(tx, {
      name: input.name,
      display_name: input.display_name ?? input.name,
      chain_id: input.chain_id,
      rpc_url: input.rpc_url ?? null,
      ws_url: input.ws_url ?? null,
      explorer_url: input.explorer_url ?? null,
      native_currency: input.native_currency ?? 'ETH',
      is_testnet: input.is_testnet ?? false,
      is_enabled: input.is_enabled ?? true,
    })));
    await this.d.audit.record(ctx, 'chain.create', { resourceType: 'chain', resourceId: row.id, details: this.auditDetails(row) });
    return this.view(row);
  }

  async update(ctx: ActionContext, identifier: string, input: ChainUpdateInput): Promise<ChainView> {
    const em = this.d.db();
    await this.d.operators.requireOperator(em, callerOf(ctx));
    const current = await this.find(em, identifier);
    if (!current) throw notFound('Chain');
    // Other records name chains by name and chain_id (signing keys, transactions): both are fixed.
    if (input.name !== undefined && input.name !== current.name) throw invalidField('name', 'cannot be changed; create a new chain instead');
    if (input.chain_id !== undefined && input.chain_id !== current.chain_id) throw invalidField('chain_id', 'cannot be changed; create a new chain instead');
    const { name: _n, chain_id: _c, ...changes } = input;
    checkUrls(changes);
    this.checkPin(current.name, changes.rpc_url);
    // Sending the pinned URL back unchanged is a no-op for that field, not a change to store.
    if (this.d.rpcOverrides.has(current.name)) delete changes.rpc_url;
    const row = await this.write(() => em.transactional((tx) => updateChain(tx, current.id, changes)));
    if (!row) throw notFound('Chain');
    const fields = (Object.keys(input) as (keyof ChainUpdateInput)[]).filter((k) => input[k] !== undefined);
    await this.d.audit.record(ctx, 'chain.update', { resourceType: 'chain', resourceId: row.id, details: { fields, ...this.auditDetails(row) } });
    return this.view(row);
  }

  async delete(ctx: ActionContext, identifier: string): Promise<void> {
    const em = this.d.db();
    await this.d.operators.requireOperator(em, callerOf(ctx));
    const current = await this.find(em, identifier);
    if (!current) throw notFound('Chain');
    const deleted = await this.write(() => em.transactional((tx) => deleteChain(tx, current.id)));
    if (!deleted) throw notFound('Chain');
    await this.d.audit.record(ctx, 'chain.delete', { resourceType: 'chain', resourceId: current.id, details: { name: current.name, chain_id: current.chain_id } });
  }

  /** Logs CHAIN_RPC_URLS entries that name no chain (a typo pins nothing); never fails. */
  async logUnusedOverrides(): Promise<void> {
    try {
      const unknown = await unknownChainNames(this.d.db(), [...this.d.rpcOverrides.keys()]);
      if (unknown.length > 0) this.d.log.warn('CHAIN_RPC_URLS names chains that do not exist (yet); their entries apply once such a chain is created', { names: unknown });
    } catch (e) {
      this.d.log.warn('CHAIN_RPC_URLS could not be checked against the chains', { error: (e as Error).message });
    }
  }

  private find(em: EntityManager, identifier: string): Promise<ChainRow | null> {
    const key = parseChainIdentifier(identifier);
    return key ? findChain(em, key) : Promise.resolve(null);
  }

  private view(row: ChainRow): ChainView {
    const { url, pinned } = effectiveRpcUrl(row, this.d.rpcOverrides);
    return { ...row, rpc_url: url, rpc_url_pinned: pinned };
  }

  /** 409 when `rpcUrl` would replace a pinned URL with another (undefined: not being set). */
  private checkPin(name: string, rpcUrl: string | null | undefined): void {
    const pin = this.d.rpcOverrides.get(name);
    if (pin === undefined || rpcUrl === undefined || rpcUrl === pin) return;
    throw new Problem(409, `rpc_url of chain "${name}" is set by this deployment's CHAIN_RPC_URLS; change it there`, {
      extras: { errors: [{ field: 'rpc_url', message: 'set by CHAIN_RPC_URLS' }] },
    });
  }

  /** Runs a write; a duplicate name or chain_id is a 409 naming the field, a chain still in use one too. */
  private async write<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (e instanceof UniqueConstraintViolationException) {
        const field = UNIQUE_FIELDS[(e as { constraint?: string }).constraint ?? ''] ?? 'name';
        const message = field === 'name' ? 'another chain already has this name' : 'another chain already has this chain_id';
        throw new Problem(409, `${field}: ${message}`, { extras: { errors: [{ field, message }] } });
      }
      if (e instanceof ForeignKeyConstraintViolationException) throw new Problem(409, 'The chain is still in use; disable it instead (is_enabled: false)');
      throw e;
    }
  }

  /** What the audit log keeps: identity and state, and of the endpoints their origins only (a URL may hold a key). */
  private auditDetails(r: ChainRow): Record<string, unknown> {
    return {
      name: r.name, chain_id: r.chain_id, is_enabled: r.is_enabled, is_testnet: r.is_testnet,
      rpc_url_origin: endpointOrigin(r.rpc_url), ws_url_origin: endpointOrigin(r.ws_url),
    };
  }
}

/** 400 naming the first URL field that is not a usable endpoint. */
function checkUrls(input: Partial<Record<UrlField, string | null | undefined>>): void {
  for (const [field, kind] of URL_FIELDS) {
    const v = input[field];
    if (v === undefined || v === null) continue;
    const problem = endpointUrlProblem(kind, v);
    if (problem) throw invalidField(field, problem);
  }
}
