import type { AudioFrame } from '@livekit/rtc-node';
import { KeysPressed, type ConsultRoom, type JoinConsultRoom } from '../../agent/io/consult-room.js';
import type { FakeLiveKit } from './livekit.js';

// The assistant's seat in a consultation room, in process, for tests: there is no LiveKit server here, so the WebRTC
// side of a warm transfer (agent/io/consult-room.ts) is played by this stand-in, beside the Twirp fake. It keeps what
// the real room does: joining needs the room to exist on the server; the person is heard from only once the server has
// them in the room (dialled and answered); their keys arrive as the room's DTMF events would, kept until read; audio
// played to the room is what the person hears. The person is scripted: they press a key once they have heard enough
// (by default, all of it), hang up, or stay silent as a voicemail's greeting does.

export interface ScriptedPerson {
  /** The key they press, or `hang_up`, or nothing (a voicemail: no key ever). */
  answer?: string | 'hang_up';
  /** They answer once they have heard this much of what is played; by default, once all of it has played. */
  afterHeardMs?: number;
}

export interface ConsultRoomStandIn {
  join: JoinConsultRoom;
  /** The rooms joined, in order, with what was played in each and whether the assistant left. */
  sessions: Array<{ room: string; identity: string; heardMs: number; frames: AudioFrame[]; left: boolean }>;
}

export function consultRoomStandIn(livekit: FakeLiveKit, person: (room: string) => ScriptedPerson & { identity: string }): ConsultRoomStandIn {
  const sessions: ConsultRoomStandIn['sessions'] = [];
  const join: JoinConsultRoom = async (access, room, identity) => {
    if (access.apiKey !== livekit.apiKey || access.apiSecret !== livekit.apiSecret) throw new Error('invalid token');
    if (livekit.participants(room) === undefined) throw new Error(`room ${room} does not exist`);
    const session = { room, identity, heardMs: 0, frames: [] as AudioFrame[], left: false };
    sessions.push(session);
    const keys = new KeysPressed();
    const script = person(room);
    let answered = false;
    const answerIfDue = (allPlayed: boolean) => {
      if (answered || session.left || script.answer === undefined) return;
      if (!livekit.participants(room)?.includes(script.identity)) return;
      if (script.afterHeardMs !== undefined ? session.heardMs < script.afterHeardMs : !allPlayed) return;
      answered = true;
      keys.push(script.identity, script.answer === 'hang_up' ? 'left' : script.answer);
    };
    const consultRoom: ConsultRoom = {
      async play(frames, signal) {
        for await (const frame of frames) {
          if (signal.aborted || session.left) break;
          session.frames.push(frame);
          session.heardMs += (frame.samplesPerChannel * 1000) / frame.sampleRate;
          answerIfDue(false);
        }
        if (!signal.aborted) answerIfDue(true);
      },
      nextKey: (who, signal) => keys.next(who, signal),
      async leave() {
        session.left = true;
      },
    };
    return consultRoom;
  };
  return { join, sessions };
}
