import type { PrismaClient } from '../../prisma/client.js';
import type { MailTransport } from '../../lib/mail.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { AssistantReadCache } from '../../modules/assistants/index.js';
import type { SignInLimit } from '../auth/sign-in-limit.js';
import type { StreamTokens } from '../../lib/stream-token.js';
import type { CallAudioRunner } from '../../modules/calls/index.js';
import type { RecordingStorage } from '../../media/recording/storage.js';
import type { VendorTargetPolicy } from '../../lib/net/vendor-targets.js';

/** What the dashboard's pages need: the same services, with the same dependencies, as the API's routes. */
export interface DashboardDeps {
  prisma: PrismaClient;
  mail: MailTransport;
  publicUrl: string | undefined;
  signInLimit: SignInLimit;
  secrets: SecretBox;
  assistantCache: AssistantReadCache | undefined;
  /** The built-in browser call: a test call from an assistant's page. */
  browserCalls: { tokens: StreamTokens; runner: CallAudioRunner | undefined };
  recordings: RecordingStorage;
  /** As the API's campaign routes have them: why a number's calls cannot be placed here, and the dispatcher's wake-up. */
  campaigns: { unavailable: (kind: string) => string | undefined; wake: () => void };
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS, as the API's webhook routes have it. */
  allowPrivateWebhookTargets: boolean;
  /** Where assistants' vendor URLs may lead besides public addresses (AppOptions.vendorTargets). */
  vendorTargets: VendorTargetPolicy;
}
