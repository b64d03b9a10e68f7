// A bootstrap template's spec (issue 35 §2; reference facts §23): what a connection's bootstrap
// creates for the app's user. Checked when the template is stored, so a bootstrap never meets a
// spec it cannot apply:
//   vault          {name (default "main"), description}
//   agents         [{name, description, intents: {enabled}, shroud_enabled, shroud_config, provision_eoa}]
//                  (at least one when policies or signing_keys name an agent)
//   policies       [{principal_ref "agents.<name>" (agents.primary: the first agent), vault_ref "vault",
//                  paths (default ["**"]), permissions (default ["read", "write"]), conditions}]
//   signing_keys   [{chain}]: a key per chain family for the first agent
//   runtimes, automations: lists the reference names; bootstrapping them is not offered yet, so they must be empty.
import { z } from 'zod';
import { ConditionsSchema } from '../access/conditions.ts';
import { globPatternField } from '../paths/glob-pattern-field.ts';

export const TEMPLATE_KEY_CHAINS = ['ethereum', 'bitcoin', 'solana', 'xrp', 'cardano', 'tron'] as const;

const pattern = globPatternField;

const agentSpec = z.strictObject({
  name: z.string().trim().min(1).max(100),
  description: z.string().max(1000).optional(),
  intents: z.strictObject({ enabled: z.boolean() }).optional(),
  shroud_enabled: z.boolean().optional(),
  shroud_config: z.record(z.string(), z.unknown()).optional(),
  provision_eoa: z.boolean().optional(),
});

const policySpec = z.strictObject({
  principal_ref: z.string().regex(/^agents\.[^.\s]{1,100}$/, { message: 'must be agents.<name> (agents.primary: the first agent)' }),
  vault_ref: z.literal('vault', { message: 'must be "vault" (the template\'s one vault)' }).default('vault'),
  paths: z.array(pattern).min(1).max(20).default(['**']),
  permissions: z.array(z.enum(['read', 'write', 'delete', 'rotate'])).min(1).max(4).default(['read', 'write']).transform((p) => [...new Set(p)]),
  conditions: ConditionsSchema.optional(),
});

const emptyList = (what: string) => z.array(z.unknown()).max(0, { message: `bootstrapping ${what} is not offered yet: leave it empty` }).optional();

export const TemplateSpecSchema = z.strictObject({
  vault: z.strictObject({ name: z.string().trim().min(1).max(100).default('main'), description: z.string().max(1000).optional() }).default({ name: 'main' }),
  agents: z.array(agentSpec).max(10).default([]),
  policies: z.array(policySpec).max(50).default([]),
  signing_keys: z.array(z.strictObject({ chain: z.enum(TEMPLATE_KEY_CHAINS, { message: `must be one of ${TEMPLATE_KEY_CHAINS.join(', ')}` }) })).max(6).default([]),
  runtimes: emptyList('runtimes'),
  automations: emptyList('automations'),
}).superRefine((s, c) => {
  const names = s.agents.map((a) => a.name);
  names.forEach((n, i) => { if (names.indexOf(n) !== i) c.addIssue({ code: 'custom', path: ['agents', i, 'name'], message: `"${n}" is used twice` }); });
  s.policies.forEach((p, i) => {
    const ref = p.principal_ref.slice('agents.'.length);
    if (names.length === 0 || (ref !== 'primary' && !names.includes(ref))) {
      c.addIssue({ code: 'custom', path: ['policies', i, 'principal_ref'], message: `names no agent of this template (${names.length ? names.join(', ') : 'it has none'})` });
    }
  });
  if (s.signing_keys.length > 0 && names.length === 0) c.addIssue({ code: 'custom', path: ['signing_keys'], message: 'needs an agent to hold the keys' });
  const chains = s.signing_keys.map((k) => k.chain);
  chains.forEach((ch, i) => { if (chains.indexOf(ch) !== i) c.addIssue({ code: 'custom', path: ['signing_keys', i, 'chain'], message: `${ch} is listed twice` }); });
});

export type TemplateSpec = z.output<typeof TemplateSpecSchema>;

/** The agent a policy's principal_ref names: agents.<name>, or agents.primary for the first agent (unless one is named primary). */
export function agentOfRef(spec: TemplateSpec, ref: string): string {
  const name = ref.slice('agents.'.length);
  return spec.agents.some((a) => a.name === name) ? name : spec.agents[0]!.name;
}
