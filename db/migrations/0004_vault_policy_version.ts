// A per-vault counter of policy changes, kept by a trigger so that no code path can change a
// policy without moving it. The secret read caches a principal's policies per vault and asks
// Postgres for them again only when the counter differs, in the same query and snapshot as the
// read itself: a cache that cannot serve a stale grant.
export const name = '0004_vault_policy_version';

export const up = `
ALTER TABLE vaults ADD COLUMN policy_version bigint NOT NULL DEFAULT 0;

CREATE FUNCTION bump_vault_policy_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE vaults SET policy_version = policy_version + 1 WHERE id = OLD.vault_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND (TG_OP = 'INSERT' OR NEW.vault_id IS DISTINCT FROM OLD.vault_id) THEN
    UPDATE vaults SET policy_version = policy_version + 1 WHERE id = NEW.vault_id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER policies_bump_vault_version AFTER INSERT OR UPDATE OR DELETE ON policies
  FOR EACH ROW EXECUTE FUNCTION bump_vault_policy_version();
`;
