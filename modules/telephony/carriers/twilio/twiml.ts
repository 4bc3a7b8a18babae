// The TwiML documents the voice webhook answers with: connect the call's audio to our Media Streams socket, or refuse it.

import { escapeXml as xml } from '../../../../lib/markup.js';

const twiml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><Response>${body}</Response>`;

/** Streams the call's audio both ways over the socket at `url`, which receives `parameters` in its `start` message. */
export function connectStreamTwiml(url: string, parameters: Record<string, string>): string {
  const params = Object.entries(parameters)
    .map(([name, value]) => `<Parameter name="${xml(name)}" value="${xml(value)}"/>`)
    .join('');
  return twiml(`<Connect><Stream url="${xml(url)}">${params}</Stream></Connect>`);
}

/** Connects the call to `destination` instead: a number, or a SIP URI in `<Sip>` (a transfer). */
export function dialTwiml(destination: string): string {
  return twiml(`<Dial>${/^sips?:/.test(destination) ? `<Sip>${xml(destination)}</Sip>` : `<Number>${xml(destination)}</Number>`}</Dial>`);
}

/** For a number nobody manages, or one without an assistant. */
export const NOT_TAKEN_TWIML = twiml('<Say>Sorry, this number cannot take your call.</Say><Hangup/>');
/** While this process cannot take calls: no carrier auth token configured, or no agent worker. */
export const UNAVAILABLE_TWIML = twiml('<Say>Sorry, calls cannot be taken right now.</Say><Hangup/>');
/** The process is at capacity: the caller hears a busy signal, and the carrier can try the number's fallback. */
export const BUSY_TWIML = twiml('<Reject reason="busy"/>');
/** A request whose signature does not match: not the carrier. */
export const REJECT_TWIML = twiml('<Reject/>');
