// Customer-managed keys (issue 12 §1). A CMEK value is encrypted by the client with its own key;
// the server stores it like any value (under the vault's envelope) and records, per version, the
// fingerprint of the customer key it was written under, so reads can say `cmek_encrypted` and a
// re-encryption job knows what is left to do after a restart.
// A CMEK rotation job holds the two customer keys sealed under a KMS key of its own (job_key_ref)
// for its lifetime only: the columns are cleared and the job key destroyed when the job ends.
export const name = '0016_cmek';

export const up = `
ALTER TABLE secret_versions ADD COLUMN cmek_fingerprint text CHECK (cmek_fingerprint ~ '^[0-9a-f]{64}$');
CREATE INDEX secret_versions_cmek_idx ON secret_versions (cmek_fingerprint) WHERE cmek_fingerprint IS NOT NULL;
ALTER TABLE vaults ADD CONSTRAINT vaults_cmek_fingerprint_format CHECK (cmek_fingerprint ~ '^[0-9a-f]{64}$');
ALTER TABLE key_rotation_jobs
  ADD COLUMN old_fingerprint text,
  ADD COLUMN new_fingerprint text,
  ADD COLUMN job_key_ref text,
  ADD COLUMN sealed_old_key bytea,
  ADD COLUMN sealed_new_key bytea;
`;
