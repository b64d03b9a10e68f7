// Every migration, in order. A migration is never edited after it lands; add a new one.
import * as m0001 from './0001_foundation.ts';
import * as m0002 from './0002_vaults_secrets_policies_agents.ts';
import * as m0003 from './0003_agent_enrollments.ts';
import * as m0004 from './0004_vault_policy_version.ts';
import * as m0005 from './0005_policies_truncate_bumps_versions.ts';

export type Migration = { name: string; up: string };
export const migrations: Migration[] = [m0001, m0002, m0003, m0004, m0005];
