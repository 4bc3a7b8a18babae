import type { AudioFrame } from '@livekit/rtc-node';

// What a call's transport can do to the phone line besides carrying its audio: hand the caller over to another number
// (transfer, with or without a briefing) and press keys (DTMF). Each transport says what it supports: LiveKit SIP all
// (agent/io/livekit-line.ts), a carrier's Media Streams all (agent/io/carrier-line.ts), a web call none (WEB_LINE). The built-in tools act
// through it (line-tools.ts).

export interface CallLine {
  /** What carries the call, for logs: `sip`, `carrier`, `web`. */
  readonly kind: string;
  readonly canTransfer: boolean;
  readonly canSendDtmf: boolean;
  /**
   * Hands the caller over to `destination` (E.164 or a sip: URI) and resolves once the far side has taken the call;
   * the line is then no longer ours. Rejects with a LineError when the transfer is refused.
   */
  transfer(destination: string, options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * Whether `consult` can be used: a warm transfer, where the person at the destination is called and briefed while
   * the caller holds, and the caller is connected only once they accept.
   */
  readonly canConsult: boolean;
  /**
   * Calls `destination`, has `briefing` said to whoever answers, and, if they accept, connects the caller with them
   * (the line is then no longer ours). Resolves with how it went; rejects with a LineError when the call to the person
   * could not be made at all. `signal` gives up (the caller hung up): the person's call is ended.
   */
  consult?(request: ConsultRequest): Promise<ConsultOutcome>;
  /** Sends a checked DTMF sequence (media/dtmf.ts: digits, and `w` for half a second) and resolves once it is sent. */
  sendDtmf(digits: string, options?: { signal?: AbortSignal }): Promise<void>;
}

export interface ConsultRequest {
  destination: string;
  briefing: string;
  ringTimeoutS: number;
  signal: AbortSignal;
  /**
   * The call's own voice, for a line that says the briefing itself (LiveKit SIP: the assistant speaks in the person's
   * room); a carrier says it with its own voice and ignores this.
   */
  voice?: BriefingVoice | undefined;
}

/** Speech of `text` as audio frames, in the call's voice. */
export type BriefingVoice = (text: string, signal: AbortSignal) => AsyncIterable<AudioFrame>;

/**
 * How a consultation ended: `accepted` (the caller is with the person now), `declined`, `no_answer`, `busy`,
 * `voicemail` (a machine answered), `failed` (the carrier could not place it), `timeout` (no word in time), `canceled`
 * (given up on, the caller gone).
 */
export type ConsultOutcome = 'accepted' | 'declined' | 'no_answer' | 'busy' | 'voicemail' | 'failed' | 'timeout' | 'canceled';

/**
 * A line action that did not happen. `message` is a sentence for the model, which it may relay to the caller; `code`
 * and `detail` are for the log (a SIP status, a carrier's error code), never a phone number.
 */
export class LineError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'LineError';
  }
}

export const TRANSFER_UNSUPPORTED =
  'This call cannot be transferred: the caller is on a web call, not a phone line. Tell the caller you cannot transfer them, and offer to help another way.';
export const DTMF_UNSUPPORTED = 'Keypad tones cannot be sent on this call: the caller is on a web call, not a phone line.';

/** A call in a browser: there is no phone line to transfer or to press keys on. */
export const WEB_LINE: CallLine = {
  kind: 'web',
  canTransfer: false,
  canSendDtmf: false,
  canConsult: false,
  transfer: () => Promise.reject(new LineError(TRANSFER_UNSUPPORTED, 'unsupported')),
  sendDtmf: () => Promise.reject(new LineError(DTMF_UNSUPPORTED, 'unsupported')),
};

/** What a transfer asks of a SIP endpoint: `tel:` for a number, a SIP URI as it is. */
export function transferUri(destination: string): string {
  return /^sips?:/.test(destination) ? destination : `tel:${destination}`;
}

/** Waits `ms`, or less when `signal` aborts (resolving either way: the caller checks the signal). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
