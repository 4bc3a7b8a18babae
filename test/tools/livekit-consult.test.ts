import { initializeLogger } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveKitSipLine } from '../../agent/io/livekit-line.js';
import { CONSULT_ASSISTANT_IDENTITY, CONSULT_PERSON_IDENTITY, CONSULT_QUESTION } from '../../agent/io/livekit-consult.js';
import { LineError, type BriefingVoice, type ConsultRequest } from '../../agent/call/line.js';
import { until } from '../helpers/until.js';
import { scaledClockInEachTest } from '../helpers/scaled-clock.js';
import { consultRoomStandIn, type ScriptedPerson } from '../fakes/consult-room.js';
import { startFakeLiveKit, type FakeLiveKit } from '../fakes/livekit.js';

// A warm transfer on the LiveKit SIP line, its orchestration end to end: the consultation room, the person's dial
// (CreateSIPParticipant, waiting until answered) and the SIP answers of a refused dial, the move into the caller's room,
// the room's deletion. The server is the Twirp fake; the assistant's seat in the consultation room is the in-process
// stand-in (test/fakes/consult-room.ts), with a scripted person pressing keys: the room's media needs a real server.

initializeLogger({ pretty: false, level: 'silent' });
scaledClockInEachTest();

const DESK = '+14155550142';
const NUMBER = '+14155550311';
const BRIEFING = 'Jane Doe is calling to book an appointment.';
/** A voice of 50 ms of silence a character, at 24 kHz as many TTS voices speak: the briefing is about 2 s. */
const MS_PER_CHAR = 50;
const voice: BriefingVoice = async function* (text) {
  for (let ms = 0; ms < text.length * MS_PER_CHAR; ms += 20) yield new AudioFrame(new Int16Array(480), 24_000, 1, 480);
};
const spokenMs = (text: string) => Math.ceil((text.length * MS_PER_CHAR) / 20) * 20;

let livekit: FakeLiveKit;
let person: ScriptedPerson = {};
let standIn: ReturnType<typeof consultRoomStandIn>;
beforeAll(async () => {
  livekit = await startFakeLiveKit();
  livekit.addRoom('call-room');
  standIn = consultRoomStandIn(livekit, () => ({ ...person, identity: CONSULT_PERSON_IDENTITY }));
});
afterAll(() => livekit.close());

function line(trunk: { livekitTrunkId: string | null; sipAddress?: string } = { livekitTrunkId: 'ST_desk' }, room = 'call-room') {
  livekit.addRoom(room);
  return new LiveKitSipLine({
    url: livekit.url,
    apiKey: livekit.apiKey,
    apiSecret: livekit.apiSecret,
    room,
    participantIdentity: 'sip_caller',
    dtmf: { publishDtmf: async () => {} },
    consult: {
      trunk: { livekitTrunkId: trunk.livekitTrunkId, sipAddress: trunk.sipAddress ?? '', sipTransport: 'tls', username: 'acme', password: 'trunk-secret' },
      from: NUMBER,
      joinRoom: standIn.join,
    },
  });
}

function request(signal = new AbortController().signal): ConsultRequest {
  return { destination: DESK, briefing: BRIEFING, ringTimeoutS: 5, signal, voice };
}

/** What the fake was asked from call number `from` on, by method. */
const since = (from: number) => livekit.calls.slice(from);

describe('a warm transfer on the LiveKit SIP line', () => {
  it('opens a consultation room, dials the person into it, briefs them, and moves them into the caller’s room when they press 1', async () => {
    person = { answer: '1' };
    const from = livekit.calls.length;
    const sipLine = line();
    expect(sipLine.canConsult).toBe(true);
    expect(await sipLine.consult(request())).toBe('accepted');
    expect(sipLine.handedOver).toBe(true);

    const asked = since(from);
    expect(asked.map((c) => c.method)).toEqual(['CreateRoom', 'CreateSIPParticipant', 'MoveParticipant', 'DeleteRoom']);
    const [create, dial, move, remove] = asked;
    const room = create!.body.name as string;
    expect(room).toMatch(/^call-room-consult-[0-9a-f]{8}$/);
    expect(create!.body).toMatchObject({ emptyTimeout: 30, maxParticipants: 2 });
    expect(dial!.body).toMatchObject({
      sipTrunkId: 'ST_desk',
      sipCallTo: DESK,
      sipNumber: NUMBER,
      roomName: room,
      participantIdentity: CONSULT_PERSON_IDENTITY,
      waitUntilAnswered: true,
      ringingTimeout: '5s',
    });
    // The person hears no dial tone of ours: false, protobuf JSON's default, is left out.
    expect(dial!.body.playDialtone ?? false).toBe(false);
    expect(dial!.claims.sip?.call).toBe(true);
    expect(move!.body).toEqual({ room, identity: CONSULT_PERSON_IDENTITY, destinationRoom: 'call-room' });
    expect(move!.claims.video).toMatchObject({ roomAdmin: true, room, destinationRoom: 'call-room' });
    expect(remove!.body).toEqual({ room });

    // The person heard the briefing and the question, in the call's voice, from the assistant's seat, which then left.
    const session = standIn.sessions.at(-1)!;
    expect(session).toMatchObject({ room, identity: CONSULT_ASSISTANT_IDENTITY, left: true });
    expect(session.heardMs).toBe(spokenMs(BRIEFING) + spokenMs(CONSULT_QUESTION));
    // The person is with the caller; the consultation room is gone.
    expect(livekit.participants('call-room')).toContain(CONSULT_PERSON_IDENTITY);
    expect(livekit.participants(room)).toBeUndefined();
  });

  it('deletes the consultation room, which hangs the person up, when they press 2, even while the briefing plays', async () => {
    // A key other than 1 or 2 leaves the question standing.
    person = { answer: '7' };
    const first = await line().consult({ ...request(), signal: AbortSignal.timeout(60_000) });
    expect(first).toBe('timeout');
    person = { answer: '2', afterHeardMs: 500 };
    const from = livekit.calls.length;
    const sipLine = line({ livekitTrunkId: null, sipAddress: 'sip.carrier.example' }, 'declined-room');
    expect(await sipLine.consult(request())).toBe('declined');
    expect(sipLine.handedOver).toBe(false);
    const asked = since(from);
    expect(asked.map((c) => c.method)).toEqual(['CreateRoom', 'CreateSIPParticipant', 'DeleteRoom']);
    // Without a trunk provisioned in LiveKit, the connection's SIP server and credentials go inline.
    expect(asked[1]!.body.trunk).toMatchObject({ hostname: 'sip.carrier.example', authUsername: 'acme', authPassword: 'trunk-secret' });
    expect(asked[1]!.body.sipTrunkId ?? '').toBe('');
    // The briefing stopped at the key.
    expect(standIn.sessions.at(-1)!.heardMs).toBeLessThan(spokenMs(BRIEFING));
    expect(livekit.participants(asked[0]!.body.name)).toBeUndefined();
    expect(livekit.participants('declined-room')).toEqual([]);
  }, 60_000);

  it('reads the SIP answer of a dial the person’s side refused: busy, no answer, declined', async () => {
    person = { answer: '1' };
    const cases: Array<[string, number, string, string]> = [
      ['+14155550186', 486, 'Busy Here', 'busy'],
      ['+14155550187', 480, 'Temporarily Unavailable', 'no_answer'],
      ['+14155550188', 408, 'Request Timeout', 'no_answer'],
      ['+14155550189', 603, 'Decline', 'declined'],
    ];
    for (const [number, sipStatus, reason, outcome] of cases) {
      livekit.onDial(number, { sipStatus, reason });
      const from = livekit.calls.length;
      expect(await line().consult({ ...request(), destination: number }), `SIP ${sipStatus}`).toBe(outcome);
      const asked = since(from);
      expect(asked.map((c) => c.method)).toEqual(['CreateRoom', 'CreateSIPParticipant', 'DeleteRoom']);
      expect(livekit.participants(asked[0]!.body.name)).toBeUndefined();
    }
  });

  it('gives up on a person who answers and presses nothing (a voicemail) once the briefing and the key window are over', async () => {
    person = {};
    const from = livekit.calls.length;
    expect(await line().consult(request())).toBe('timeout');
    expect(since(from).map((c) => c.method)).toEqual(['CreateRoom', 'CreateSIPParticipant', 'DeleteRoom']);
    expect(standIn.sessions.at(-1)!.heardMs).toBe(spokenMs(BRIEFING) + spokenMs(CONSULT_QUESTION));
  }, 60_000);

  it('counts a person who hangs up on the briefing as a decline', async () => {
    person = { answer: 'hang_up', afterHeardMs: 200 };
    expect(await line().consult(request())).toBe('declined');
  });

  it('ends the person’s ringing call when the caller hangs up', async () => {
    livekit.onDial('+14155550190', { answer: true, afterMs: 30_000 });
    const caller = new AbortController();
    const from = livekit.calls.length;
    const consult = line().consult({ ...request(), destination: '+14155550190', signal: caller.signal });
    await until(() => since(from).some((c) => c.method === 'CreateSIPParticipant'));
    caller.abort();
    expect(await consult).toBe('canceled');
    const asked = since(from);
    expect(asked.map((c) => c.method)).toEqual(['CreateRoom', 'CreateSIPParticipant', 'DeleteRoom']);
  });

  it('hangs the person up and reports a failure when the server cannot move them (no MoveParticipant)', async () => {
    person = { answer: '1' };
    livekit.withoutMoveParticipant(true);
    try {
      const from = livekit.calls.length;
      const sipLine = line(undefined, 'unmoved-room');
      expect(await sipLine.consult(request())).toBe('failed');
      expect(sipLine.handedOver).toBe(false);
      const asked = since(from);
      expect(asked.map((c) => c.method)).toEqual(['CreateRoom', 'CreateSIPParticipant', 'MoveParticipant', 'DeleteRoom']);
      expect(livekit.participants('unmoved-room')).toEqual([]);
      expect(livekit.participants(asked[0]!.body.name)).toBeUndefined();
    } finally {
      livekit.withoutMoveParticipant(false);
    }
  });

  it('refuses with a sentence for the model when the call has no trunk, no voice, or the server is down', async () => {
    const bare = new LiveKitSipLine({
      url: livekit.url,
      apiKey: livekit.apiKey,
      apiSecret: livekit.apiSecret,
      room: 'call-room',
      participantIdentity: 'sip_caller',
      dtmf: { publishDtmf: async () => {} },
    });
    expect(bare.canConsult).toBe(false);
    await expect(bare.consult(request())).rejects.toThrow(/no trunk/);
    const noVoice = await line()
      .consult({ ...request(), voice: undefined })
      .catch((e: unknown) => e);
    expect(noVoice).toBeInstanceOf(LineError);
    expect((noVoice as LineError).code).toBe('unsupported');
    livekit.down(true);
    try {
      const down = (await line()
        .consult(request())
        .catch((e: unknown) => e)) as LineError;
      expect(down.code).toBe('livekit_error');
      expect(down.message).not.toContain(DESK.slice(2));
    } finally {
      livekit.down(false);
    }
  });
});
