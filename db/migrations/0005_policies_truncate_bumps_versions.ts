// TRUNCATE fires no row trigger, so 0004's counter would not move when the policies table is
// emptied that way; cached policies and cached reads would keep serving the removed grants.
// A statement-level trigger moves every vault's counter instead.
export const name = '0005_policies_truncate_bumps_versions';

export const up = `
CREATE FUNCTION bump_all_vault_policy_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE vaults SET policy_version = policy_version + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER policies_truncate_bumps_vault_versions AFTER TRUNCATE ON policies
  FOR EACH STATEMENT EXECUTE FUNCTION bump_all_vault_policy_versions();
`;
