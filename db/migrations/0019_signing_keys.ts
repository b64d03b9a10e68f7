// Agents' signing keys (spec §4.7, issue 13 §2; reference SigningKeyResponse). One row per key an
// agent ever had on a chain: the active one signs, earlier ones stay as the record of rotations.
// Every EVM chain shares the one `ethereum` key. The row keeps only public facts: the key's handle
// in the KMS (SigningKeyRef) is a secret in the organization's reserved `__agent-keys` vault, at
// `agents/{agent_id}/chains/{chain}/private_key`, one secret version per key; the row names that
// version (handle_vault_id, handle_path, handle_version). public_key is 0x-hex of the 65-byte
// uncompressed SEC1 point; address is EIP-55 checksummed.
// chain and curve admit the spec's chains now, so the later chains need no change of constraint.
export const name = '0019_signing_keys';

export const up = `
CREATE TABLE signing_keys (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  chain text NOT NULL CHECK (chain IN ('ethereum','bitcoin','solana','xrp','cardano','tron')),
  curve text NOT NULL CHECK (curve IN ('secp256k1','ed25519')),
  public_key text NOT NULL,
  address text NOT NULL,
  key_version integer NOT NULL CHECK (key_version > 0),
  is_active boolean NOT NULL DEFAULT true,
  key_backend text NOT NULL CHECK (key_backend IN ('local','pkcs11')),
  handle_vault_id uuid NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
  handle_path text NOT NULL,
  handle_version integer NOT NULL CHECK (handle_version > 0),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  rotated_at timestamptz,
  deactivated_at timestamptz,
  CONSTRAINT signing_keys_version_unique UNIQUE (agent_id, chain, key_version),
  CONSTRAINT signing_keys_active_not_deactivated CHECK (is_active = (deactivated_at IS NULL))
);
-- At most one active key per agent and chain.
CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys (agent_id, chain) WHERE is_active;
CREATE INDEX signing_keys_org_idx ON signing_keys (org_id);
`;
