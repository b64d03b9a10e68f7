import { Organization } from './organization.ts';
import { User } from './user.ts';

export { Organization, User };
export const entities = [Organization, User];
