import { AudioFrame } from '@livekit/rtc-node';
import type { voice } from '@livekit/agents';
import { settledWithin } from '../../lib/async.js';
import { dtmfSamples } from '../../media/dtmf.js';
import { LineError, type CallLine, type ConsultOutcome, type ConsultRequest } from '../call/line.js';
import { type CarrierAccount, type CarrierAdapter, carrierOfKind, CarrierRequestError } from '../../modules/telephony/index.js';
import { consultThroughCarrier, type CarrierConsultSetup } from './carrier-consult.js';

// The phone line of a caller who came through a carrier's Media Streams. A transfer is the carrier adapter's own
// (modules/telephony/carriers: Twilio's "update call" with `<Dial>` TwiML, its REST client, timeout and errors): the
// carrier stops our stream and connects the caller there. Media Streams carries no out-of-band DTMF, so keys are
// played in-band, as tones on the call's audio output, which the carrier sends on as any other audio.

/** In-band tones: 8 kHz, the rate of the phone line they end up on. */
const TONE_RATE = 8000;
const FRAME_SAMPLES = TONE_RATE / 50;

const TRANSFER_NOT_SET_UP =
  'This call cannot be transferred: transfers are not set up for this phone line. Tell the caller you cannot transfer them, and offer to help another way.';

export type { CarrierAccount };

export interface CarrierLineOptions {
  /** Without the account, keys can still be pressed (in-band), but the call cannot be transferred. */
  account: CarrierAccount | undefined;
  /** The carrier the account is with; Twilio, the one carrier of Media Streams lines today, when not given. */
  adapter?: CarrierAdapter | undefined;
  /** The carrier's id of this call (`CallSid` of its voice webhook, the call row's `provider_call_sid`). */
  callSid: string;
  /** The call's audio output: keys are played on it. */
  output: voice.AudioOutput;
  /** What a warm transfer needs besides the account: the database, the service's public URL, the call. */
  consult?: CarrierConsultSetup | undefined;
}

export class CarrierLine implements CallLine {
  readonly kind = 'carrier';
  readonly canTransfer: boolean;
  readonly canSendDtmf = true;
  readonly canConsult: boolean;

  constructor(private readonly options: CarrierLineOptions) {
    this.canTransfer = options.account !== undefined;
    this.canConsult = options.account !== undefined && options.consult !== undefined;
  }

  async consult(request: ConsultRequest): Promise<ConsultOutcome> {
    if (!this.options.account || !this.options.consult) throw new LineError(TRANSFER_NOT_SET_UP, 'unsupported');
    const adapter = this.options.adapter ?? carrierOfKind('twilio')!;
    return consultThroughCarrier({ ...this.options.consult, adapter, account: this.options.account, callerSid: this.options.callSid }, request);
  }

  async transfer(destination: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    if (!this.options.account) throw new LineError(TRANSFER_NOT_SET_UP, 'unsupported');
    const adapter = this.options.adapter ?? carrierOfKind('twilio')!;
    try {
      await adapter.transfer(this.options.account, this.options.callSid, destination, options.signal);
    } catch (error) {
      // Answered with an error (a refusal, a rate limit, a failure of its own): the carrier's words are passed on.
      const answered = error instanceof CarrierRequestError && error.details.status !== undefined;
      if (!answered) {
        throw new LineError(
          'The transfer could not be made: the phone carrier did not answer. The caller is still on the line with you: tell them, and offer to help another way.',
          'carrier_unreachable',
          {
            cause: error instanceof CarrierRequestError ? error.reason : (error as Error)?.name,
          },
        );
      }
      const said = /\): (.*)$/.exec(error.message)?.[1] ?? /: (.*)$/.exec(error.message)?.[1];
      throw new LineError(
        `The transfer did not go through: the phone carrier refused it${said ? ` (${said.slice(0, 200)})` : ''}. The caller is still on the line with you: tell them, and offer to help another way.`,
        'carrier_error',
        error.details,
      );
    }
  }

  /** Plays the keys on the call's audio, then waits until they have played (bounded by their own length and a second). */
  async sendDtmf(digits: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const samples = dtmfSamples(digits, TONE_RATE);
    const { output } = this.options;
    for (let offset = 0; offset < samples.length; offset += FRAME_SAMPLES) {
      if (options.signal?.aborted) break;
      const chunk = samples.slice(offset, offset + FRAME_SAMPLES);
      await output.captureFrame(new AudioFrame(chunk, TONE_RATE, 1, chunk.length));
    }
    output.flush();
    if (options.signal?.aborted) {
      output.clearBuffer();
      throw new LineError('The keypad tones were cancelled.', 'cancelled');
    }
    const playMs = (samples.length * 1000) / TONE_RATE;
    await settledWithin(output.waitForPlayout(), playMs + 1_000);
  }
}

/**
 * The line of a call the carrier's Media Streams carries, from its row: the carrier's call id is its
 * `provider_call_sid`. Undefined for any other call (a web call's line applies).
 */
export function carrierLineOf(
  call: { id: number; transport: string; providerCallSid: string | null; direction: string; fromNumber: string | null; toNumber: string | null },
  account: CarrierAccount | undefined,
  output: voice.AudioOutput,
  consult?: Omit<CarrierConsultSetup, 'callId' | 'from'> | undefined,
): CarrierLine | undefined {
  if (call.transport !== 'media_stream' || !call.providerCallSid) return undefined;
  // The person consulted sees the call come from our number: the one the caller called, or the one we called from.
  const from = call.direction === 'inbound' ? call.toNumber : call.fromNumber;
  return new CarrierLine({
    account,
    callSid: call.providerCallSid,
    output,
    consult: consult && from ? { ...consult, callId: call.id, from } : undefined,
  });
}
