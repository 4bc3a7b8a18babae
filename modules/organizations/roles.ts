import { AppError } from '../../lib/errors.js';

/** What a person may do in the dashboard; docs/dashboard.md ("Roles") is the table people read. */
export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

/**
 * - `use`: everything an API key can do (assistants, calls, contacts, campaigns, knowledge, tools, webhooks, analytics)
 *   and one's own profile.
 * - `manage_keys`: create and revoke the organisation's API keys. A key acts with the whole organisation's data, so it
 *   is not for every member.
 * - `manage_members`: invite, change roles, remove; only to and from roles at or below one's own (`assignable`).
 * - `billing`: usage and cost, and the organisation's limits.
 */
export type Action = 'use' | 'manage_keys' | 'manage_members' | 'billing';

const ALLOWED: Record<Role, ReadonlySet<Action>> = {
  owner: new Set(['use', 'manage_keys', 'manage_members', 'billing']),
  admin: new Set(['use', 'manage_keys', 'manage_members', 'billing']),
  member: new Set(['use']),
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function can(role: string, action: Action): boolean {
  return isRole(role) && ALLOWED[role].has(action);
}

export function requireRole(role: string, action: Action): void {
  if (!can(role, action)) throw new AppError('role_forbidden', `Your role (${role}) does not allow this; ask an owner or admin`);
}

/** An owner grants or takes away any role; an admin only admin and member, so an admin cannot make or unmake owners. */
export function assignable(actor: string, target: string): boolean {
  if (actor === 'owner') return isRole(target);
  if (actor === 'admin') return target === 'admin' || target === 'member';
  return false;
}
