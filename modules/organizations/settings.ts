import type { Db } from '../../prisma/client.js';
import { activeCalls, type PrivacyMode, privacyModeOf } from '../calls/index.js';

export interface OrganizationSettings {
  organization_id: number;
  name: string;
  default_phone_region: string;
  max_concurrent_calls: number;
  active_calls: number;
  privacy_mode: PrivacyMode;
  recording_retention_days: number | null;
  transcript_retention_days: number | null;
}

export async function getOrganizationSettings(db: Db, organizationId: number): Promise<OrganizationSettings> {
  const org = await db.organization.findUniqueOrThrow({ where: { id: organizationId } });
  return {
    organization_id: org.id,
    name: org.name,
    default_phone_region: org.defaultRegion,
    max_concurrent_calls: org.maxConcurrentCalls,
    active_calls: await activeCalls(db, organizationId),
    privacy_mode: privacyModeOf(org.privacyMode),
    recording_retention_days: org.recordingRetentionDays,
    transcript_retention_days: org.transcriptRetentionDays,
  };
}

/**
 * Changes the settings of the caller's organisation. A new default region applies to numbers read from now on;
 * stored numbers are already E.164 and keep their meaning.
 */
export async function updateOrganizationSettings(
  db: Db,
  organizationId: number,
  patch: {
    default_phone_region?: string | undefined;
    max_concurrent_calls?: number | undefined;
    privacy_mode?: PrivacyMode | undefined;
    recording_retention_days?: number | null | undefined;
    transcript_retention_days?: number | null | undefined;
  },
): Promise<OrganizationSettings> {
  const data = {
    ...(patch.default_phone_region !== undefined ? { defaultRegion: patch.default_phone_region } : {}),
    // A lower limit refuses new calls until enough have ended; calls under way are never cut.
    ...(patch.max_concurrent_calls !== undefined ? { maxConcurrentCalls: patch.max_concurrent_calls } : {}),
    ...(patch.privacy_mode !== undefined ? { privacyMode: patch.privacy_mode } : {}),
    // A shorter window deletes, at the job's next pass, what is now past it; a longer one cannot bring back what is gone.
    ...(patch.recording_retention_days !== undefined ? { recordingRetentionDays: patch.recording_retention_days } : {}),
    ...(patch.transcript_retention_days !== undefined ? { transcriptRetentionDays: patch.transcript_retention_days } : {}),
  };
  if (Object.keys(data).length > 0) await db.organization.update({ where: { id: organizationId }, data });
  return getOrganizationSettings(db, organizationId);
}
