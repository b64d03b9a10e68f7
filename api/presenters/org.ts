// Organization members and invitations (reference OrgMemberResponse, OrgMemberListResponse,
// InviteMemberResponse). Optional fields are omitted rather than sent as null.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways, omitNull } from './registry.ts';
import type { MemberRow } from '../../domain/org/member-repository.ts';
import type { AcceptedInvitation } from '../../domain/org/invitation-commands.ts';

export const OrgMemberSchema = shape('OrgMember', z.object({
  id: uuid,
  /** The same id again, under the name the member routes take it by. */
  user_id: uuid,
  email: z.string(),
  display_name: z.string().optional(),
  role: z.enum(['owner', 'admin', 'member']),
  auth_method: z.string(),
  created_at: timestamp,
}));

/** Reference AgentKeysVaultResponse. */
export const AgentKeysVaultSchema = shape('AgentKeysVault', z.object({ vault_id: uuid }));
export const presentAgentKeysVault = (vaultId: string): z.output<typeof AgentKeysVaultSchema> => ({ vault_id: vaultId });

export const OrgMemberListSchema = shape('OrgMemberList', z.object({ members: z.array(OrgMemberSchema) }));

export const InvitationSentSchema = shape('InvitationSent', z.object({ message: z.string(), email: z.string() }));

export const InvitationAcceptedSchema = shape('InvitationAccepted', z.object({
  message: z.string(),
  email: z.string(),
  role: z.enum(['admin', 'member']),
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
}), 'The new member\'s account was created; its session starts with this token');

export function presentMember(m: MemberRow): z.output<typeof OrgMemberSchema> {
  return {
    id: m.id,
    user_id: m.id,
    email: m.email,
    display_name: omitNull(m.display_name),
    role: m.role,
    auth_method: m.auth_method,
    created_at: isoAlways(m.created_at),
  };
}

export const presentMemberList = (members: MemberRow[]): z.output<typeof OrgMemberListSchema> => ({ members: members.map(presentMember) });

export const presentInvitationSent = (r: { email: string }): z.output<typeof InvitationSentSchema> => ({ message: 'Invitation sent', email: r.email });

export function presentInvitationAccepted(a: AcceptedInvitation): z.output<typeof InvitationAcceptedSchema> {
  return { message: 'Welcome to the organization', email: a.email, role: a.role, access_token: a.accessToken, token_type: 'Bearer', expires_in: a.expiresIn };
}
