import type { PrismaClient } from '../../prisma/client.js';
import { createApiKey } from './api-keys.js';

export interface BootstrapResult {
  organization_id: number;
  user_id: number;
  api_key: string;
}

// Serialises concurrent bootstraps so that two operators (or two scripts) cannot create the same organisation twice.
export const BOOTSTRAP_LOCK_KEY = 727_202_612;

/**
 * Creates (or reuses) an organisation and its user, and always issues a fresh API key for that user. An existing user
 * keeps the organisation it belongs to.
 */
export async function bootstrap(prisma: PrismaClient, input: { organizationName: string; email: string; keyName?: string }): Promise<BootstrapResult> {
  const email = input.email.trim().toLowerCase();
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})`;
    let user = await tx.user.findUnique({ where: { email } });
    if (!user) {
      const organization =
        (await tx.organization.findFirst({ where: { name: input.organizationName }, orderBy: { id: 'asc' } })) ??
        (await tx.organization.create({ data: { name: input.organizationName } }));
      user = await tx.user.create({ data: { email, organizationId: organization.id } });
    }
    const key = await createApiKey(tx, { organizationId: user.organizationId, userId: user.id, name: input.keyName ?? 'bootstrap' });
    return { organization_id: user.organizationId, user_id: user.id, api_key: key.key };
  });
}
