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

/** Seconds the person consulted has to press a key once the briefing has been said. */
export const CONSULT_KEY_TIMEOUT_S = 8;

/**
 * What the person a warm transfer calls hears once they answer: the briefing, then the question, in a `<Gather>` of
 * one key whose answer is POSTed to `answerUrl`. No key at all falls through to a goodbye: the caller is taken back.
 */
export function consultTwiml(briefing: string, answerUrl: string): string {
  return twiml(
    `<Gather input="dtmf" numDigits="1" timeout="${CONSULT_KEY_TIMEOUT_S}" action="${xml(answerUrl)}" method="POST">` +
      `<Say>${xml(briefing)}</Say><Say>Press 1 to take the call, or 2 to decline.</Say></Gather>` +
      '<Say>No answer was given. The caller will be told. Goodbye.</Say><Hangup/>',
  );
}

/** Joins the call to the conference `room`, which ends when either party leaves: the caller and the person, together. */
export function conferenceTwiml(room: string, before = ''): string {
  return twiml(`${before}<Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="true" beep="false">${xml(room)}</Conference></Dial>`);
}

/** The person said no: they are thanked, and the assistant goes back to the caller. */
export const CONSULT_DECLINED_TWIML = twiml('<Say>Thank you. The caller will be told. Goodbye.</Say><Hangup/>');

/** For a number nobody manages, or one without an assistant. */
export const NOT_TAKEN_TWIML = twiml('<Say>Sorry, this number cannot take your call.</Say><Hangup/>');
/** While this process cannot take calls: no carrier auth token configured, or no agent worker. */
export const UNAVAILABLE_TWIML = twiml('<Say>Sorry, calls cannot be taken right now.</Say><Hangup/>');
/** The process is at capacity: the caller hears a busy signal, and the carrier can try the number's fallback. */
export const BUSY_TWIML = twiml('<Reject reason="busy"/>');
/** A request whose signature does not match: not the carrier. */
export const REJECT_TWIML = twiml('<Reject/>');
