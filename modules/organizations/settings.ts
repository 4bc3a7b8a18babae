import type { Db } from '../../prisma/client.js';

export interface OrganizationSettings {
  organization_id: number;
  name: string;
  default_phone_region: string;
}

export async function getOrganizationSettings(db: Db, organizationId: number): Promise<OrganizationSettings> {
  const org = await db.organization.findUniqueOrThrow({ where: { id: organizationId } });
  return { organization_id: org.id, name: org.name, default_phone_region: org.defaultRegion };
}

/**
 * Changes the settings of the caller's organisation. A new default region applies to numbers read from now on;
 * stored numbers are already E.164 and keep their meaning.
 */
export async function updateOrganizationSettings(
  db: Db,
  organizationId: number,
  patch: { default_phone_region?: string },
): Promise<OrganizationSettings> {
  if (patch.default_phone_region !== undefined) {
    await db.organization.update({ where: { id: organizationId }, data: { defaultRegion: patch.default_phone_region } });
  }
  return getOrganizationSettings(db, organizationId);
}
