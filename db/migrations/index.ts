// Every migration, in order. A migration is never edited after it lands; add a new one.
import * as m0001 from './0001_foundation.ts';
import * as m0002 from './0002_vaults_secrets_policies_agents.ts';
import * as m0003 from './0003_agent_enrollments.ts';
import * as m0004 from './0004_vault_policy_version.ts';
import * as m0005 from './0005_policies_truncate_bumps_versions.ts';
import * as m0006 from './0006_ip_rule_applies_to.ts';
import * as m0007 from './0007_secret_access_caps_and_rotation_policy.ts';
import * as m0008 from './0008_auth_throttle_and_kept_session.ts';
import * as m0009 from './0009_mail_outbox_sealed_body.ts';
import * as m0010 from './0010_webhooks.ts';
import * as m0011 from './0011_webhook_delivery_batches.ts';
import * as m0012 from './0012_automations.ts';
import * as m0013 from './0013_shares.ts';
import * as m0014 from './0014_email_verifications.ts';
import * as m0015 from './0015_key_rotation_jobs.ts';
import * as m0016 from './0016_cmek.ts';
import * as m0017 from './0017_chains.ts';
import * as m0018 from './0018_billing_period.ts';
import * as m0019 from './0019_signing_keys.ts';
import * as m0020 from './0020_agent_signing_flags.ts';
import * as m0021 from './0021_agent_transactions.ts';
import * as m0022 from './0022_execution_bindings.ts';
import * as m0023 from './0023_outbox_wake_after_commit.ts';
import * as m0024 from './0024_transaction_idempotency_index.ts';
import * as m0025 from './0025_agent_eip712_domains.ts';

export type Migration = { name: string; up: string };
export const migrations: Migration[] = [m0001, m0002, m0003, m0004, m0005, m0006, m0007, m0008, m0009, m0010, m0011, m0012, m0013, m0014, m0015, m0016, m0017, m0018, m0019, m0020, m0021, m0022, m0023, m0024, m0025];
