import type { ApiContext } from './api.js';
import { hashPassword } from '../../modules/organizations/passwords.js';

export interface Person {
  userId: number;
  email: string;
  password: string;
}

let people = 0;

/** A person of `organizationId` with `role` and a password, as accepting an invitation would leave them. */
export async function addPerson(api: ApiContext, organizationId: number, role: 'owner' | 'admin' | 'member'): Promise<Person> {
  people += 1;
  const email = `${role}${people}-${Date.now()}@example.com`;
  const password = `password of ${email}`;
  const user = await api.db.prisma.user.create({
    data: { organizationId, email, name: `${role} ${people}`, role, passwordHash: await hashPassword(password) },
  });
  return { userId: user.id, email, password };
}
