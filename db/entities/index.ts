import { ApiKey } from './api-key.ts';
import { Invitation } from './invitation.ts';
import { IpRule } from './ip-rule.ts';
import { Organization } from './organization.ts';
import { User } from './user.ts';

export { ApiKey, Invitation, IpRule, Organization, User };
export const entities = [ApiKey, Invitation, IpRule, Organization, User];
