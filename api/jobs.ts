import type { FastifyBaseLogger } from 'fastify';
import type { PrismaClient } from '../prisma/client.js';
import type { ChangeFeed } from '../lib/pg-listen.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { VendorCredentials } from '../lib/vendor-credentials.js';
import type { StreamTokens } from '../lib/stream-token.js';
import { type Dialler, type LiveKitTelephony, startCarrierReportQueue, startDialler } from '../modules/telephony/index.js';
import { campaignDialPacing, startCampaignDispatcher } from '../modules/campaigns/index.js';
import { startWebhookDelivery } from '../modules/webhooks/index.js';
import { type PgVectors, startDocumentProcessing } from '../modules/knowledge/index.js';
import { startJobLoop } from '../lib/jobs.js';
import { startRollupFolder } from '../modules/analytics/index.js';
import { clearExpiredSignInCounts } from './auth/sign-in-limit.js';
import { startRetentionJob } from '../modules/organizations/index.js';
import type { RecordingStorage } from '../media/recording/storage.js';

// Every background job of an API process, started here and nowhere else, each a job loop (lib/jobs.ts) over leased
// rows woken on the process's change feed: any number of API processes run the same jobs on the same database.
// The outbound dialler and the campaign dispatcher run where a call path is configured; carrier reports always; webhook
// delivery and document processing when the process is the service (tests start their own, with their own settings).
// Ended calls are folded into the charts' rollups every second; expired sign-in counts are swept every 5 minutes;
// recordings and transcripts past their organisation's retention are deleted hourly.

export interface ApiJobOptions {
  prisma: PrismaClient;
  changes: ChangeFeed | undefined;
  logger: FastifyBaseLogger;
  secrets: SecretBox;
  /** The outbound call paths; without either, no dialler or campaign dispatcher runs. */
  paths: {
    livekit: LiveKitTelephony | undefined;
    carrier: { publicUrl: string; tokens: StreamTokens; apiBaseUrl: string } | undefined;
  };
  /** Whether the worker that runs this process's carrier calls is at capacity: its calls then wait in the queue. */
  carrierCallsAtCapacity?: (() => boolean) | undefined;
  diallerPollIntervalMs?: number | undefined;
  quietCarrierDialMs?: number | undefined;
  campaignTickMs?: number | undefined;
  /** Where recordings are stored: the retention job deletes from it. */
  recordings?: RecordingStorage | undefined;
  /** Webhook delivery, document processing and retention (`startApi`); unset, this process runs none of them. */
  delivery?: {
    allowPrivateTargets: boolean;
    credentials: VendorCredentials;
    pgvector: PgVectors | undefined;
  };
}

export interface ApiJobs {
  dialler: Dialler | undefined;
  /** Runs a campaign tick now (a campaign was started or resumed). */
  wakeCampaigns(): void;
  /** Stops every job, each waiting (bounded) for its work in flight. */
  stop(): Promise<void>;
}

/** 5 minutes, as the rate-limit store's own sweep: a count is a row of a few bytes, kept an hour past its expiry. */
const SIGN_IN_SWEEP_MS = 300_000;
/** A sweep under way at stop is one indexed delete: 5 s at most, so a hung database cannot hold the shutdown. */
const SWEEP_STOP_MS = 5_000;

export function startApiJobs(options: ApiJobOptions): ApiJobs {
  const { prisma, logger } = options;
  const child = (component: string) => logger.child({ component });
  const { livekit, carrier } = options.paths;
  const dialler =
    livekit || carrier
      ? startDialler(
          prisma,
          { livekit, carrier },
          {
            logger: child('dialler'),
            secrets: options.secrets,
            pollIntervalMs: options.diallerPollIntervalMs,
            quietCarrierDialMs: options.quietCarrierDialMs,
            dialGate: campaignDialPacing,
            carrierCallsAtCapacity: options.carrierCallsAtCapacity,
          },
        )
      : undefined;
  // Campaigns queue their calls for the same dialler; every API process runs a dispatcher, paced in Postgres.
  const campaigns = dialler
    ? startCampaignDispatcher(prisma, { logger: child('campaigns'), intervalMs: options.campaignTickMs, onQueued: () => dialler.wake() })
    : undefined;
  // Carrier callbacks stored by any process are applied by every process's queue (modules/telephony/carrier-reports.ts).
  const carrierReports = startCarrierReportQueue(prisma, { logger: child('carrier-reports') });
  // Ended calls' rollup deltas into the charts' rollups; every process runs it, one folds at a time.
  const rollups = startRollupFolder(prisma, { logger: child('rollups') });
  const signInCounts = startJobLoop({
    intervalMs: SIGN_IN_SWEEP_MS,
    unref: true,
    pass: async () => void (await clearExpiredSignInCounts(prisma)),
    onError: (err, l) => {
      if (!l.stopping) logger.warn({ err }, 'expired sign-in counts not cleared; the next sweep tries again');
    },
  });
  const delivery = options.delivery;
  const webhooks =
    delivery &&
    startWebhookDelivery(prisma, {
      changes: options.changes,
      allowPrivateTargets: delivery.allowPrivateTargets,
      logger: child('webhooks'),
      secrets: options.secrets,
    });
  // Leased rows too, so any API process may take any document; vectors go to pgvector's index where there is one.
  const documents =
    delivery &&
    startDocumentProcessing(prisma, {
      changes: options.changes,
      logger: child('documents'),
      credentials: delivery.credentials,
      allowPrivateTargets: delivery.allowPrivateTargets,
      pgvector: delivery.pgvector,
    });
  // Recordings and transcripts past each organisation's retention windows, deleted and audited (hourly).
  const retention = delivery && options.recordings ? startRetentionJob(prisma, options.recordings, { logger: child('retention') }) : undefined;
  let stopped: Promise<void> | undefined;
  return {
    dialler,
    wakeCampaigns: () => campaigns?.wake(),
    stop: () =>
      (stopped ??= (async () => {
        // The dispatcher first: it queues calls for the dialler, which then finishes what it holds.
        await campaigns?.stop();
        await Promise.all([
          dialler?.stop(),
          carrierReports.stop(),
          rollups.stop(),
          webhooks?.stop(),
          documents?.stop(),
          signInCounts.stop(SWEEP_STOP_MS),
          retention?.stop(SWEEP_STOP_MS),
        ]);
      })()),
  };
}
