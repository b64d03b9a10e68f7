// Input schemas of the organization routes (members and invitations).
import { z } from 'zod';
import { idParam, emailField, passwordField, displayNameField } from '../../input/fields.ts';

export const memberParams = z.object({ user_id: idParam });
export const changeRoleBody = z.object({ role: z.enum(['owner', 'admin', 'member']) });

/** Ownership is granted by changing a member's role, never by invitation. */
export const inviteBody = z.object({ email: emailField, role: z.enum(['member', 'admin']).default('member') });

export const acceptInvitationBody = z.object({ token: z.string().min(1).max(256), password: passwordField, display_name: displayNameField.optional() })
  .transform((b) => ({ token: b.token, password: b.password, displayName: b.display_name ?? null }));
