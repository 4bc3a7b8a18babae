import { z } from 'zod';
import { normalizeEmail } from '../contacts/index.js';
import { Password } from './passwords.js';
import { ROLES } from './roles.js';

// Requests and answers of the session-only functions (people, sessions, keys); the dashboard's forms validate with the
// same schemas, so a refused field reads the same in a page as in the API's 422.

export const Email = z.string().max(254).transform(normalizeEmail).pipe(z.email('Enter an email address such as name@example.com'));
const Name = z.string().trim().min(1, 'Enter a name').max(200);
export const Role = z
  .enum(ROLES)
  .describe('owner: everything, including owners; admin: everything but owners; member: the product, not keys, people or billing');

export const SetupRequest = z.strictObject({ organization_name: Name, name: Name, email: Email, password: Password }).meta({ id: 'SetupRequest' });
export const SignInRequest = z.strictObject({ email: Email, password: z.string().min(1, 'Enter your password').max(200) }).meta({ id: 'SignInRequest' });
export const ResetRequest = z.strictObject({ email: Email }).meta({ id: 'PasswordResetRequest' });
export const ResetConfirm = z.strictObject({ token: z.string().min(1).max(100), password: Password }).meta({ id: 'PasswordResetConfirm' });
export const InvitationAccept = z.strictObject({ token: z.string().min(1).max(100), name: Name, password: Password }).meta({ id: 'InvitationAccept' });

export const InvitationCreate = z.strictObject({ email: Email, role: Role.default('member') }).meta({ id: 'InvitationCreate' });
export const RoleChange = z.strictObject({ role: Role }).meta({ id: 'RoleChange' });
export const ProfileUpdate = z
  .strictObject({
    name: Name.optional(),
    email: Email.optional(),
    current_password: z.string().max(200).optional().describe('Required to change the email'),
  })
  .meta({ id: 'ProfileUpdate' });
export const PasswordChange = z
  .strictObject({ current_password: z.string().min(1, 'Enter your current password').max(200), new_password: Password })
  .meta({ id: 'PasswordChange' });
export const ApiKeyCreate = z.strictObject({ name: z.string().trim().min(1, 'Name the key after what uses it').max(100) }).meta({ id: 'ApiKeyCreate' });

const when = z.iso.datetime();
export const ApiKeyItem = z
  .object({
    id: z.int(),
    name: z.string().nullable(),
    prefix: z.string().describe('The first characters of the key, to recognise it by'),
    created_by: z.object({ user_id: z.int(), email: z.string(), name: z.string().nullable() }),
    created_at: when,
    last_used_at: when.nullable().describe('Written every 15 s at most, so up to 15 s behind'),
    revoked_at: when.nullable(),
  })
  .meta({ id: 'ApiKey' });
export const ApiKeyCreated = ApiKeyItem.extend({ key: z.string().describe('The key itself: shown this once, stored only as a hash') }).meta({
  id: 'ApiKeyCreated',
});
export const Member = z
  .object({ user_id: z.int(), email: z.string(), name: z.string().nullable(), role: Role, created_at: when, has_password: z.boolean() })
  .meta({ id: 'Member' });
export const Invitation = z
  .object({ id: z.int(), email: z.string(), role: Role, invited_by: z.int(), created_at: when, expires_at: when })
  .meta({ id: 'Invitation' });
export const InvitationCreated = Invitation.extend({ url: z.string().describe('The link to hand the person; shown this once') }).meta({
  id: 'InvitationCreated',
});
export const Profile = z
  .object({ user_id: z.int(), organization_id: z.int(), organization_name: z.string(), email: z.string(), name: z.string().nullable(), role: Role })
  .meta({ id: 'Profile' });
export const SessionItem = z
  .object({ id: z.int(), user_agent: z.string().nullable(), created_at: when, last_seen_at: when, expires_at: when, current: z.boolean() })
  .meta({ id: 'Session' });
