import { SipCallError, SipClient } from 'livekit-server-sdk';
import { dtmfSteps, rfc4733Code } from '../../media/dtmf.js';
import type { OutboundTrunk } from '../../modules/telephony/index.js';
import { LineError, pause, transferUri, type CallLine, type ConsultOutcome, type ConsultRequest } from '../call/line.js';
import type { JoinConsultRoom } from './consult-room.js';
import { consultThroughLiveKit } from './livekit-consult.js';

// The phone line of a caller who came through LiveKit SIP. A transfer asks LiveKit to hand the SIP participant over
// (TransferSIPParticipant: a SIP REFER to the caller's side); keys are sent as RFC 4733 events through the room, which
// LiveKit SIP plays to the caller's side. A warm transfer calls the person into a consultation room through the call's
// trunk and, once they accept, moves them into the caller's room (livekit-consult.ts).

/**
 * One key every half second: LiveKit SIP plays each event for 250 ms then waits 250 ms (livekit/sip, pkg/media/dtmf),
 * so a key published sooner would arrive while the last one still sounds.
 */
export const LIVEKIT_DTMF_INTERVAL_MS = 500;
/** How long the transfer's destination may ring before LiveKit gives up: 30 s, LiveKit's own default. */
export const TRANSFER_RINGING_TIMEOUT_S = 30;

export interface LiveKitLineOptions {
  /** The LiveKit server's URL (ws(s) or http(s)) and API credentials: the job's worker hands them over. */
  url: string;
  apiKey: string;
  apiSecret: string;
  room: string;
  /** The SIP participant: the caller. */
  participantIdentity: string;
  /** The room's local participant: publishes the DTMF events. */
  dtmf: { publishDtmf(code: number, digit: string): Promise<void> };
  /** Let the caller hear a dial tone while the destination rings (default true). */
  playDialtone?: boolean;
  /** What a warm transfer needs: the trunk of the call's number and that number; without it, none can be made. */
  consult?: { trunk: OutboundTrunk; from: string; joinRoom?: JoinConsultRoom; logFields?: Record<string, unknown> } | undefined;
}

export class LiveKitSipLine implements CallLine {
  readonly kind = 'sip';
  readonly canTransfer = true;
  readonly canSendDtmf = true;
  readonly canConsult: boolean;
  readonly #sip: SipClient;
  #handedOver = false;

  constructor(private readonly options: LiveKitLineOptions) {
    this.#sip = new SipClient(options.url.replace(/^ws/, 'http'), options.apiKey, options.apiSecret);
    this.canConsult = options.consult !== undefined;
  }

  /**
   * Whether a warm transfer put the person in the caller's room: the room is theirs now, and must not be deleted when
   * the assistant's call ends (the job leaves it instead).
   */
  get handedOver(): boolean {
    return this.#handedOver;
  }

  async consult(request: ConsultRequest): Promise<ConsultOutcome> {
    const { consult } = this.options;
    if (!consult)
      throw new LineError(
        'A transfer with a briefing cannot be made on this call: its phone number has no trunk to call through. The caller is still on the line with you: tell them, and offer to help another way.',
        'unsupported',
      );
    const outcome = await consultThroughLiveKit({ ...this.options, ...consult, callRoom: this.options.room }, request);
    if (outcome === 'accepted') this.#handedOver = true;
    return outcome;
  }

  async transfer(destination: string): Promise<void> {
    try {
      await this.#sip.transferSipParticipant(this.options.room, this.options.participantIdentity, transferUri(destination), {
        playDialtone: this.options.playDialtone ?? true,
        ringingTimeout: TRANSFER_RINGING_TIMEOUT_S,
      });
    } catch (error) {
      throw transferRefusal(error);
    }
  }

  async sendDtmf(digits: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const steps = dtmfSteps(digits);
    for (const [i, step] of steps.entries()) {
      if (options.signal?.aborted) throw new LineError('The keypad tones were cancelled.', 'cancelled');
      if ('pauseMs' in step) {
        await pause(step.pauseMs, options.signal);
        continue;
      }
      await this.options.dtmf.publishDtmf(rfc4733Code(step.digit), step.digit);
      if (i < steps.length - 1) await pause(LIVEKIT_DTMF_INTERVAL_MS, options.signal);
    }
  }
}

/** What the model is told of a refused transfer: the SIP answer in words, never the number. */
function transferRefusal(error: unknown): LineError {
  if (error instanceof SipCallError) {
    const status = error.sipStatusCode;
    const why =
      status === 486 || status === 600
        ? 'the line was busy'
        : status === 408 || status === 480
          ? 'nobody answered'
          : status === 404
            ? 'the number was not found'
            : status === 403 || status === 603
              ? 'the call was declined'
              : 'the call could not be connected';
    return new LineError(
      `The transfer did not go through: ${why} (SIP ${status ?? 'error'}${error.sipStatus ? ` ${error.sipStatus}` : ''}). The caller is still on the line with you: tell them, and offer to help another way.`,
      'sip_error',
      { sipStatus: status },
    );
  }
  const status = (error as { status?: number }).status;
  return new LineError(
    'The transfer could not be made: the phone system did not accept it. The caller is still on the line with you: tell them, and offer to help another way.',
    'transfer_failed',
    { status, message: (error as Error)?.message },
  );
}
