// A bootstrap's plan (issue 35 §3): the template's spec with every resource's id chosen before the
// workflow starts. It is stored on the connection's bootstrap row (migration 0056), and each step
// of the workflow makes its resources under these ids, so a step re-run after a crash finds what
// it made instead of making it twice.
import { randomUUID } from 'node:crypto';
import { agentOfRef, type TemplateSpec } from './template-spec.ts';

export type PlannedAgent = { id: string; name: string; description: string; intentsEnabled: boolean };
export type PlannedPolicy = { id: string; agentId: string; paths: string[]; permissions: string[]; conditions: Record<string, unknown> };

export type BootstrapPlan = {
  /** The user the resources are made for: their organization holds them, they created them. */
  userId: string;
  orgId: string;
  /** The app's organization: where the platform events go. */
  appOrgId: string;
  vault: { id: string; name: string; description: string };
  agents: PlannedAgent[];
  /** One policy row per template policy and path (a row holds one pattern). */
  policies: PlannedPolicy[];
  /** The app's reach into the vault until the user claims it: the connection's own policy. */
  appPolicyId: string;
  signingKeys: { id: string; chain: string }[];
};

export function planBootstrap(spec: TemplateSpec, user: { id: string; orgId: string }, appOrgId: string): BootstrapPlan {
  const agents = spec.agents.map((a) => ({ id: randomUUID(), name: a.name, description: a.description ?? '', intentsEnabled: a.intents?.enabled ?? false }));
  const idOf = new Map(agents.map((a) => [a.name, a.id]));
  const policies = spec.policies.flatMap((p) => p.paths.map((path) => ({
    id: randomUUID(), agentId: idOf.get(agentOfRef(spec, p.principal_ref))!, paths: [path], permissions: p.permissions, conditions: p.conditions ?? {},
  })));
  // provision_eoa asks for an Ethereum key as signing_keys' ethereum entry does.
  const chains = new Set(spec.signing_keys.map((k) => k.chain as string));
  if (spec.agents[0]?.provision_eoa) chains.add('ethereum');
  return {
    userId: user.id, orgId: user.orgId, appOrgId,
    vault: { id: randomUUID(), name: spec.vault.name, description: spec.vault.description ?? '' },
    agents, policies, appPolicyId: randomUUID(),
    signingKeys: [...chains].map((chain) => ({ id: randomUUID(), chain })),
  };
}

/** The agent that holds the signing keys and whose key the bootstrap answer carries: the first. */
export const primaryAgent = (plan: BootstrapPlan): PlannedAgent | undefined => plan.agents[0];
