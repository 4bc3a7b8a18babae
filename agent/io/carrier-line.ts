import { AudioFrame } from '@livekit/rtc-node';
import type { voice } from '@livekit/agents';
import { settledWithin } from '../../lib/async.js';
import { dtmfSamples } from '../../media/dtmf.js';
import { LineError, type CallLine } from '../call/line.js';

// The phone line of a caller who came through a carrier's Media Streams (Twilio's wire format). A transfer is the
// carrier's "update call" request with new TwiML, `<Dial>` to the destination: the carrier stops our stream and
// connects the caller there. Media Streams carries no out-of-band DTMF, so keys are played in-band, as tones on the
// call's audio output, which the carrier sends on as any other audio.

/** The carrier's REST API answers an update within a second or two; ten is plenty and keeps the caller from waiting on a dead request. */
export const CARRIER_REQUEST_TIMEOUT_MS = 10_000;
/** In-band tones: 8 kHz, the rate of the phone line they end up on. */
const TONE_RATE = 8000;
const FRAME_SAMPLES = TONE_RATE / 50;

const TRANSFER_NOT_SET_UP = "This call cannot be transferred: transfers are not set up for this phone line. Tell the caller you cannot transfer them, and offer to help another way.";

export interface CarrierAccount {
  /** The account's SID (AC…) and auth token: HTTP basic auth of every REST request. */
  accountSid: string;
  authToken: string;
  /** The REST API's base URL: https://api.twilio.com, or a compatible carrier's (TWILIO_API_BASE_URL). */
  apiBaseUrl: string;
}

export interface CarrierLineOptions {
  /** Without the account, keys can still be pressed (in-band), but the call cannot be transferred. */
  account: CarrierAccount | undefined;
  /** The carrier's id of this call (`CallSid` of its voice webhook, the call row's `provider_call_sid`). */
  callSid: string;
  /** The call's audio output: keys are played on it. */
  output: voice.AudioOutput;
}

export class CarrierLine implements CallLine {
  readonly kind = 'carrier';
  readonly canTransfer: boolean;
  readonly canSendDtmf = true;

  constructor(private readonly options: CarrierLineOptions) {
    this.canTransfer = options.account !== undefined;
  }

  async transfer(destination: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    if (!this.options.account) throw new LineError(TRANSFER_NOT_SET_UP, 'unsupported');
    const { accountSid, authToken, apiBaseUrl } = this.options.account;
    const { callSid } = this.options;
    const url = `${apiBaseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Calls/${encodeURIComponent(callSid)}.json`;
    const signals = [AbortSignal.timeout(CARRIER_REQUEST_TIMEOUT_MS), ...(options.signal ? [options.signal] : [])];
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ Twiml: dialTwiml(destination) }).toString(),
        signal: AbortSignal.any(signals),
      });
    } catch (error) {
      throw new LineError('The transfer could not be made: the phone carrier did not answer. The caller is still on the line with you: tell them, and offer to help another way.', 'carrier_unreachable', {
        cause: (error as Error)?.name,
      });
    }
    if (res.ok) {
      await res.body?.cancel();
      return;
    }
    // The carrier's error body: {code, message, more_info, status}.
    const body = (await res.json().catch(() => ({}))) as { code?: number; message?: string };
    throw new LineError(
      `The transfer did not go through: the phone carrier refused it${body.message ? ` (${body.message.slice(0, 200)})` : ''}. The caller is still on the line with you: tell them, and offer to help another way.`,
      'carrier_error',
      { status: res.status, carrierCode: body.code },
    );
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
export function carrierLineOf(call: { transport: string; providerCallSid: string | null }, account: CarrierAccount | undefined, output: voice.AudioOutput): CarrierLine | undefined {
  if (call.transport !== 'media_stream' || !call.providerCallSid) return undefined;
  return new CarrierLine({ account, callSid: call.providerCallSid, output });
}

/** TwiML that connects the caller to `destination`: a number, or a SIP URI in `<Sip>`. */
export function dialTwiml(destination: string): string {
  const target = /^sips?:/.test(destination) ? `<Sip>${escapeXml(destination)}</Sip>` : `<Number>${escapeXml(destination)}</Number>`;
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Dial>${target}</Dial></Response>`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}
