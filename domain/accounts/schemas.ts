// Input rules shared by the account routes.
import { z } from 'zod';
import { PASSWORD_MAX, PASSWORD_MIN } from '../crypto/passwords.ts';

export const emailField = z.string().trim().max(254).pipe(z.email({ message: 'must be a valid e-mail address' })).transform((e) => e.toLowerCase());
export const passwordField = z.string()
  .min(PASSWORD_MIN, { message: `must be at least ${PASSWORD_MIN} characters` })
  .max(PASSWORD_MAX, { message: `must be at most ${PASSWORD_MAX} characters` });
export const displayNameField = z.string().trim().min(1).max(100);
