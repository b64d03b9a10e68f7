// Treasury wallets and their transfers (migration 0034; domain/treasury/wallets): a human's own
// wallets, whose private keys are sealed in the reserved vault __treasury-keys.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';
import { User } from './accounts.ts';
import { Vault } from './vaults.ts';

export const TreasuryWallet = defineEntity({
  name: 'TreasuryWallet',
  tableName: 'treasury_wallets',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    chain: p.enum(['ethereum', 'bitcoin', 'solana', 'xrp', 'cardano', 'tron']),
    curve: p.enum(['secp256k1', 'ed25519']),
    public_key: p.text(),
    address: p.text(),
    is_active: p.boolean().default(true),
    key_vault_id: () => p.manyToOne(Vault).mapToPk().fieldName('key_vault_id').deleteRule('cascade'),
    key_path: p.text(),
    key_item_version: p.integer().check('key_item_version > 0'),
    created_at: p.datetime().defaultRaw('now()'),
    deactivated_at: p.datetime().nullable(),
    retired_by: p.enum(['rotation', 'deactivation']).nullable(),
  },
  uniques: [{ name: 'treasury_wallets_one_active', properties: ['user_id', 'chain'], where: 'is_active' }],
  indexes: [{ name: 'treasury_wallets_owner_idx', properties: ['org_id', 'user_id'] }],
  checks: [{ name: 'treasury_wallets_active_not_retired', expression: 'is_active = (deactivated_at IS NULL)' }],
});
export type TreasuryWalletEntityRow = InferEntity<typeof TreasuryWallet>;

export const TreasuryTransfer = defineEntity({
  name: 'TreasuryTransfer',
  tableName: 'treasury_transfers',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    wallet_id: () => p.manyToOne(TreasuryWallet).mapToPk().fieldName('wallet_id').deleteRule('cascade'),
    chain: p.text(),
    chain_id: p.bigint('number'),
    from_address: p.text(),
    to_address: p.text(),
    value_wei: p.bigint('bigint').columnType('numeric(78,0)').check('value_wei >= 0'),
    data: p.text().nullable(),
    nonce: p.bigint('number'),
    signed_tx: p.text(),
    tx_hash: p.text(),
    status: p.enum(['signed', 'broadcast', 'confirmed', 'failed', 'unconfirmed']),
    error_message: p.text().nullable(),
    idempotency_key: p.text().nullable(),
    request_digest: p.text(),
    block_number: p.bigint('number').nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    broadcast_at: p.datetime().nullable(),
    mined_at: p.datetime().nullable(),
  },
  uniques: [
    { name: 'treasury_transfers_idempotency', properties: ['user_id', 'idempotency_key'], where: 'idempotency_key IS NOT NULL' },
    { name: 'treasury_transfers_sender_nonce', properties: ['chain_id', 'from_address', 'nonce'], where: "status <> 'failed'" },
  ],
  indexes: [{ name: 'treasury_transfers_open_idx', properties: ['created_at'], where: "status IN ('signed','broadcast')" }],
});
export type TreasuryTransferEntityRow = InferEntity<typeof TreasuryTransfer>;

export const TreasuryTxChallenge = defineEntity({
  name: 'TreasuryTxChallenge',
  tableName: 'treasury_tx_challenges',
  properties: {
    challenge_digest: p.text().primary(),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    tx_digest: p.text(),
    expires_at: p.datetime(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'treasury_tx_challenges_expiry_idx', properties: ['expires_at'] }],
});
