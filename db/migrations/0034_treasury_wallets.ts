// Treasury wallets (issue 31 §1; spec §1, §4.7, §5 rule 8; reference facts §22): a human's own
// wallets, one active per chain family, that only humans can move. The private key of each is a
// secret of the organization's reserved vault `__treasury-keys` (vault kind 'treasury_keys'),
// envelope-encrypted under that vault's KMS key, at `users/{user_id}/{chain}/{wallet_id}`; the row
// keeps only public facts and where the sealed key is. A rotated or deactivated wallet keeps its
// sealed key (readable for its history) but never signs again.
// treasury_transfers: one row per send, with its signed bytes, so a crash between signing and
// broadcasting loses nothing and a retried broadcast sends the same bytes (never a second
// transaction). Idempotency-Key is unique per user.
export const name = '0034_treasury_wallets';

export const up = `
ALTER TABLE vaults DROP CONSTRAINT vaults_kind_check;
ALTER TABLE vaults ADD CONSTRAINT vaults_kind_check CHECK (kind IN ('standard','agent_keys','treasury_keys'));
CREATE UNIQUE INDEX vaults_treasury_keys_once ON vaults (org_id) WHERE kind = 'treasury_keys' AND deleted_at IS NULL;

CREATE TABLE treasury_wallets (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  chain text NOT NULL CHECK (chain IN ('ethereum','bitcoin','solana','xrp','cardano','tron')),
  curve text NOT NULL CHECK (curve IN ('secp256k1','ed25519')),
  public_key text NOT NULL,
  address text NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  key_vault_id uuid NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  key_path text NOT NULL,
  key_item_version integer NOT NULL CHECK (key_item_version > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  deactivated_at timestamptz,
  retired_by text CHECK (retired_by IN ('rotation','deactivation')),
  CONSTRAINT treasury_wallets_active_not_retired CHECK (is_active = (deactivated_at IS NULL))
);
CREATE UNIQUE INDEX treasury_wallets_one_active ON treasury_wallets (user_id, chain) WHERE is_active;
CREATE INDEX treasury_wallets_owner_idx ON treasury_wallets (org_id, user_id);

CREATE TABLE treasury_transfers (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  wallet_id uuid NOT NULL REFERENCES treasury_wallets(id) ON DELETE CASCADE,
  chain text NOT NULL,
  chain_id bigint NOT NULL,
  from_address text NOT NULL,
  to_address text NOT NULL,
  value_wei numeric(78,0) NOT NULL CHECK (value_wei >= 0),
  data text,
  nonce bigint NOT NULL,
  signed_tx text NOT NULL,
  tx_hash text NOT NULL,
  status text NOT NULL CHECK (status IN ('signed','broadcast','confirmed','failed','unconfirmed')),
  error_message text,
  idempotency_key text,
  request_digest text NOT NULL,
  block_number bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  broadcast_at timestamptz,
  mined_at timestamptz
);
CREATE UNIQUE INDEX treasury_transfers_idempotency ON treasury_transfers (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
-- One live transaction per sender and nonce (a refused one frees its nonce).
CREATE UNIQUE INDEX treasury_transfers_sender_nonce ON treasury_transfers (chain_id, from_address, nonce) WHERE status <> 'failed';
CREATE INDEX treasury_transfers_open_idx ON treasury_transfers (created_at) WHERE status IN ('signed','broadcast');

-- Transaction-bound passkey assertions (reference tx-assert/begin {tx_digest}): which transfer a
-- caller's passkey challenge was issued for (by the challenge's SHA-256), taken once on complete.
CREATE TABLE treasury_tx_challenges (
  challenge_digest text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  tx_digest text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX treasury_tx_challenges_expiry_idx ON treasury_tx_challenges (expires_at);
`;
