import type { SecretBox } from '../lib/secret-box.js';
import type { PrismaClient } from '../prisma/client.js';
import { settledWithin } from '../lib/async.js';
import { runCall, type CallResult, type RunCallOptions } from './call/run-call.js';
import type { VendorAccess } from './providers/speech-providers.js';
import { loadVad } from './turn/vad.js';
import { warmLocalVoice } from '../media/voice/espeak.js';
import { eotProcess } from './turn/eot-process.js';
import type { CallRow } from '../modules/calls/index.js';
import { carrierLineOf, type CarrierAccount } from './io/carrier-line.js';
import { carrierOfCall } from '../modules/telephony/index.js';

// The worker without a LiveKit server: calls arrive through the built-in transports, which hand an audio pair to
// `start`. It shares the process's VAD models, counts its calls for load reporting, and drains on shutdown.

export type LocalCallRequest = Omit<RunCallOptions, 'prisma' | 'vad' | 'dataDir'>;

export interface LocalCallRunnerOptions {
  /** How the calls reach their vendors (the process's configuration); a request may bring its own. */
  access?: VendorAccess;
  /** Opens tools' stored credentials (SECRETS_KEY). */
  secrets?: SecretBox;
  /** Let HTTP tools reach loopback and private addresses. */
  allowPrivateToolTargets?: boolean;
  /**
   * The deployment's carrier account (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN): Media Streams calls on numbers of SIP-trunk
   * connections can be transferred with it. A call on a carrier connection uses that connection's own account.
   */
  carrier?: CarrierAccount | undefined;
  /** The REST API of carrier connections (TWILIO_API_BASE_URL; default Twilio's). */
  carrierApiBaseUrl?: string | undefined;
  /**
   * The service's public base URL (PUBLIC_URL): a warm transfer on a carrier line gives the carrier callback URLs
   * under it. Without it, warm transfers are refused (a cold transfer works).
   */
  publicUrl?: string | undefined;
  /**
   * Starts the end-of-turn model's process now (the service's worker does): started by the first call, its model load
   * took a core for about a second just as that call's welcome was being said. Tests leave it to the calls that use it.
   */
  startTurnModel?: boolean;
}

export class LocalCallRunner {
  readonly #active = new Map<Promise<CallResult>, AbortController>();
  readonly #access: VendorAccess | undefined;
  readonly #tools: Pick<RunCallOptions, 'secrets' | 'allowPrivateToolTargets'>;
  readonly #carrier: CarrierAccount | undefined;
  readonly #carrierApiBaseUrl: string;
  readonly #secrets: SecretBox | undefined;
  readonly #publicUrl: string | undefined;
  // The VAD of the default endpointing delay (0.3 s), loaded ahead of the first call; a failure surfaces on that call
  // (which loads it again), never as an unhandled rejection. The offline voice is compiled meanwhile, so the first
  // call's welcome does not wait for it; calls do not wait for that.
  readonly #warm: Promise<unknown> = loadVad(300).catch(() => {});
  #draining = false;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly dataDir: string,
    options: LocalCallRunnerOptions = {},
  ) {
    this.#access = options.access;
    this.#tools = { ...(options.secrets ? { secrets: options.secrets } : {}), allowPrivateToolTargets: options.allowPrivateToolTargets ?? false };
    this.#carrier = options.carrier;
    this.#carrierApiBaseUrl = options.carrierApiBaseUrl ?? 'https://api.twilio.com';
    this.#secrets = options.secrets;
    this.#publicUrl = options.publicUrl;
    void warmLocalVoice();
    if (options.startTurnModel) eotProcess();
  }

  /** The carrier account a call's line uses: its connection's own, else the deployment's. */
  async #carrierAccountOf(callId: number | undefined): Promise<CarrierAccount | undefined> {
    if (callId === undefined) return this.#carrier;
    const call = await this.prisma.call.findUnique({ where: { id: callId }, select: { phoneNumberId: true } });
    const own = call && (await carrierOfCall(this.prisma, { apiBaseUrl: this.#carrierApiBaseUrl, secrets: this.#secrets }, call));
    return own?.account ?? this.#carrier;
  }

  get activeCalls(): number {
    return this.#active.size;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Runs one call to its end. Refused while draining, so a transport can send the caller elsewhere. */
  async start(request: LocalCallRequest): Promise<CallResult> {
    if (this.#draining) throw new Error('the agent worker is shutting down');
    const stop = new AbortController();
    request.signal?.addEventListener('abort', () => stop.abort(request.signal?.reason), { once: true });
    const access = request.access ?? this.#access;
    const running = Promise.all([this.#warm, request.line ? undefined : this.#carrierAccountOf(request.callId).catch(() => this.#carrier)]).then(
      ([, account]) => {
        const consult = this.#publicUrl ? { prisma: this.prisma, publicUrl: this.#publicUrl } : undefined;
        const line = request.line ?? ((call: CallRow) => carrierLineOf(call, account, request.audioOutput, consult));
        return runCall({ ...this.#tools, ...request, line, ...(access ? { access } : {}), signal: stop.signal, prisma: this.prisma, dataDir: this.dataDir });
      },
    );
    this.#active.set(running, stop);
    try {
      return await running;
    } finally {
      this.#active.delete(running);
    }
  }

  /**
   * Stops taking calls and waits for the running ones to end by themselves; calls still running after `timeoutMs`
   * are ended with reason `worker_shutdown` (each still gets its end-of-call record).
   */
  async drain(timeoutMs: number): Promise<void> {
    this.#draining = true;
    const ended = await settledWithin(Promise.allSettled([...this.#active.keys()]), timeoutMs);
    if (!ended) {
      for (const stop of this.#active.values()) stop.abort('worker_shutdown');
      await Promise.allSettled([...this.#active.keys()]);
    }
  }
}
