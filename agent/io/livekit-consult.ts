import { log } from '@livekit/agents';
import crypto from 'node:crypto';
import { RoomServiceClient, SipCallError, SipClient } from 'livekit-server-sdk';
import { sipTrunkArguments, type OutboundTrunk } from '../../modules/telephony/index.js';
import { LineError, type ConsultOutcome, type ConsultRequest } from '../call/line.js';
import { joinLiveKitConsultRoom, type ConsultRoom, type JoinConsultRoom } from './consult-room.js';

// A warm transfer on a LiveKit SIP call, as LiveKit documents it (and the speech framework's warm transfer workflow
// does it): the caller stays in the call's room, on hold; a consultation room is opened, the assistant joins it, and the
// person is dialled into it through the call's trunk (CreateSIPParticipant, waiting until answered). The assistant says
// the briefing there in the call's voice and the question; the person accepts with 1 or declines with 2. Accepted, the
// person is moved into the caller's room (MoveParticipant) and the assistant leaves the call to them; otherwise the
// consultation room is deleted, which hangs the person up, and the assistant goes back to the caller.

export interface LiveKitConsultSetup {
  /** The LiveKit server's URL (ws(s) or http(s)) and API credentials. */
  url: string;
  apiKey: string;
  apiSecret: string;
  /** The caller's room: the person joins it when they accept. */
  callRoom: string;
  /** The trunk the person is called through, and the number the call comes from. */
  trunk: OutboundTrunk;
  from: string;
  /** How the assistant joins the consultation room: LiveKit's client unless given (tests give a stand-in). */
  joinRoom?: JoinConsultRoom | undefined;
  logFields?: Record<string, unknown>;
}

/** The person's participant identity, in the consultation room and then in the caller's. */
export const CONSULT_PERSON_IDENTITY = 'transfer-person';
/** The assistant's identity in the consultation room. */
export const CONSULT_ASSISTANT_IDENTITY = 'transfer-assistant';
/** What the person is asked after the briefing, as on a carrier's line (modules/telephony/carriers/twilio/twiml.ts). */
export const CONSULT_QUESTION = 'Press 1 to take the call, or 2 to decline.';
/**
 * After the question, the person has this long to press a key. LiveKit has no answering-machine detection: a
 * voicemail's greeting presses nothing, so a consultation with no key by then is not accepted (`timeout`).
 */
export const KEY_WINDOW_MS = 10_000;
/** The briefing is at most 900 characters, about a minute at 15 a second: its playing is bounded by its length and 15 s. */
const SPOKEN_CHARS_PER_S = 15;
const PLAY_MARGIN_MS = 15_000;
/** The consultation room closes itself this long after it empties, should its deletion fail. */
const CONSULT_ROOM_EMPTY_TIMEOUT_S = 30;

/** How a dial the person's side refused ended, from its SIP final response. */
export function outcomeOfSipStatus(status: number | undefined): ConsultOutcome {
  if (status === 486 || status === 600) return 'busy';
  if (status === 408 || status === 480 || status === 487) return 'no_answer';
  if (status === 603 || status === 403) return 'declined';
  return 'failed';
}

export async function consultThroughLiveKit(setup: LiveKitConsultSetup, request: ConsultRequest): Promise<ConsultOutcome> {
  const logFields = { ...setup.logFields, line: 'sip' };
  if (!request.voice)
    throw new LineError(
      'A transfer with a briefing cannot be made on this call: the assistant has no voice to brief the person with. The caller is still on the line with you: tell them, and offer to help another way.',
      'unsupported',
    );
  const host = setup.url.replace(/^ws/, 'http');
  const rooms = new RoomServiceClient(host, setup.apiKey, setup.apiSecret);
  const sip = new SipClient(host, setup.apiKey, setup.apiSecret);
  const name = `${setup.callRoom}-consult-${crypto.randomBytes(4).toString('hex')}`;

  try {
    await rooms.createRoom({ name, emptyTimeout: CONSULT_ROOM_EMPTY_TIMEOUT_S, maxParticipants: 2 });
  } catch (error) {
    throw new LineError(
      'The transfer could not be made: the phone system did not open the call to the person. The caller is still on the line with you: tell them, and offer to help another way.',
      'livekit_error',
      { status: (error as { status?: number }).status },
    );
  }
  // Deleting the room removes whoever is in it: the person's call, ringing or answered, is hung up.
  const closeRoom = () =>
    rooms.deleteRoom(name).catch((err: unknown) => log().warn({ ...logFields, err }, 'warm transfer: the consultation room was not deleted'));
  let room: ConsultRoom | undefined;
  try {
    try {
      room = await (setup.joinRoom ?? joinLiveKitConsultRoom)(setup, name, CONSULT_ASSISTANT_IDENTITY);
    } catch (error) {
      throw new LineError(
        'The transfer could not be made: the assistant could not join the call to the person. The caller is still on the line with you: tell them, and offer to help another way.',
        'consult_room_failed',
        { message: (error as Error)?.message },
      );
    }
    if (request.signal.aborted) return 'canceled';

    const [trunkId, inline] = sipTrunkArguments(setup.trunk);
    const dial = sip
      .createSipParticipant(
        trunkId,
        request.destination,
        name,
        {
          participantIdentity: CONSULT_PERSON_IDENTITY,
          participantName: 'Transfer',
          fromNumber: setup.from,
          waitUntilAnswered: true,
          ringingTimeout: request.ringTimeoutS,
          playDialtone: false,
        },
        inline,
      )
      .then(
        () => 'answered' as const,
        (error: unknown) => error,
      );
    const dialled = await untilAborted(dial, request.signal);
    if (dialled === undefined) return 'canceled';
    if (dialled !== 'answered') {
      if (dialled instanceof SipCallError && dialled.sipStatusCode !== undefined) {
        log().info({ ...logFields, sipStatus: dialled.sipStatusCode }, 'warm transfer: the person was not reached');
        return outcomeOfSipStatus(dialled.sipStatusCode);
      }
      throw new LineError(
        'The transfer could not be made: the phone system did not place the call to the person. The caller is still on the line with you: tell them, and offer to help another way.',
        'livekit_error',
        { status: (dialled as { status?: number }).status, message: (dialled as Error)?.message },
      );
    }

    const answer = await askPerson(room, request);
    if (answer !== 'accepted') return answer;
    try {
      await rooms.moveParticipant(name, CONSULT_PERSON_IDENTITY, setup.callRoom);
    } catch (error) {
      log().warn(
        { ...logFields, status: (error as { status?: number }).status, err: (error as Error)?.message },
        'warm transfer: the person could not be moved',
      );
      return 'failed';
    }
    return 'accepted';
  } finally {
    await room?.leave().catch(() => {});
    await closeRoom();
  }
}

/** Says the briefing and the question; the person's first 1 or 2 (during it or after) is the answer. */
async function askPerson(room: ConsultRoom, request: ConsultRequest): Promise<ConsultOutcome> {
  const asking = new AbortController();
  const stop = (reason: string) => () => asking.abort(reason);
  const onCancel = stop('canceled');
  request.signal.addEventListener('abort', onCancel, { once: true });
  if (request.signal.aborted) onCancel();
  const playBound = setTimeout(stop('timeout'), (request.briefing.length / SPOKEN_CHARS_PER_S) * 1000 + PLAY_MARGIN_MS + KEY_WINDOW_MS);
  let keyWindow: NodeJS.Timeout | undefined;
  const voice = request.voice!;
  async function* speech() {
    yield* voice(request.briefing, asking.signal);
    yield* voice(CONSULT_QUESTION, asking.signal);
  }
  // Once all is said, the key window starts.
  const said = () => {
    if (!asking.signal.aborted) keyWindow = setTimeout(stop('timeout'), KEY_WINDOW_MS);
  };
  void room.play(speech(), asking.signal).then(said, said);
  try {
    for (;;) {
      const key = await room.nextKey(CONSULT_PERSON_IDENTITY, asking.signal);
      if (key === undefined) return asking.signal.reason === 'canceled' ? 'canceled' : 'timeout';
      if (key === 'left') return 'declined';
      if (key === '1') return 'accepted';
      if (key === '2') return 'declined';
      // Any other key: the question stands.
    }
  } finally {
    clearTimeout(playBound);
    clearTimeout(keyWindow);
    request.signal.removeEventListener('abort', onCancel);
    // Whatever is still being said stops with the answer.
    asking.abort('answered');
  }
}

/** `work`'s result, or undefined once `signal` aborts first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then((value) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });
}
