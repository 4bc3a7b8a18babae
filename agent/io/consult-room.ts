import {
  AudioFrame,
  AudioResampler,
  AudioSource,
  LocalAudioTrack,
  Room,
  RoomEvent,
  TrackPublishOptions,
  TrackSource,
  type RemoteParticipant,
} from '@livekit/rtc-node';
import { AccessToken } from 'livekit-server-sdk';
import { downmix } from '../../media/pcm.js';

// The assistant's seat in a warm transfer's consultation room on LiveKit (agent/io/livekit-consult.ts): it joins the
// room the person is called into, says the briefing there, and hears the keys the person presses (LiveKit SIP turns
// the person's RFC 4733 events into DTMF packets in the room). The orchestration sees only this small surface; the
// implementation below is LiveKit's own client (@livekit/rtc-node), as the speech framework's warm transfer workflow
// uses, and runs only against a real LiveKit server.

export interface ConsultRoom {
  /** Plays `frames` to the room and resolves once they have been heard, or at once when `signal` aborts. */
  play(frames: AsyncIterable<AudioFrame>, signal: AbortSignal): Promise<void>;
  /**
   * The next key `identity` presses (keys pressed since joining are kept), `left` once they leave the room, or
   * undefined when `signal` aborts first.
   */
  nextKey(identity: string, signal: AbortSignal): Promise<string | 'left' | undefined>;
  /** Leaves the room; the room itself stays until it is deleted. */
  leave(): Promise<void>;
}

export interface ConsultRoomAccess {
  /** The LiveKit server's URL (ws(s) or http(s)) and API credentials. */
  url: string;
  apiKey: string;
  apiSecret: string;
}

/** Joins room `room` as `identity`. */
export type JoinConsultRoom = (access: ConsultRoomAccess, room: string, identity: string) => Promise<ConsultRoom>;

/** Keys pressed and departures, per participant, in order, waited for one at a time. */
export class KeysPressed {
  readonly #queued = new Map<string, Array<string | 'left'>>();
  readonly #waiting = new Map<string, (key: string | 'left') => void>();

  push(identity: string, key: string | 'left'): void {
    const waiter = this.#waiting.get(identity);
    if (waiter) {
      this.#waiting.delete(identity);
      waiter(key);
      return;
    }
    const queue = this.#queued.get(identity) ?? [];
    queue.push(key);
    this.#queued.set(identity, queue);
  }

  next(identity: string, signal: AbortSignal): Promise<string | 'left' | undefined> {
    const queued = this.#queued.get(identity)?.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = () => {
        if (this.#waiting.get(identity) === deliver) this.#waiting.delete(identity);
        resolve(undefined);
      };
      const deliver = (key: string | 'left') => {
        signal.removeEventListener('abort', onAbort);
        resolve(key);
      };
      this.#waiting.set(identity, deliver);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** Published audio: 48 kHz mono, WebRTC's own rate, as the call's own track (agent/livekit-job.ts). */
const PUBLISH_RATE = 48_000;
/** The token's life: a consultation is over in minutes. */
const TOKEN_TTL_S = 600;

/** The consultation room through LiveKit's client: a second Room of this job process, besides the call's. */
export const joinLiveKitConsultRoom: JoinConsultRoom = async (access, name, identity) => {
  const token = new AccessToken(access.apiKey, access.apiSecret, { identity, ttl: TOKEN_TTL_S });
  token.kind = 'agent';
  token.addGrant({ roomJoin: true, room: name, canPublish: true, canSubscribe: true, canPublishData: true });
  const room = new Room();
  const keys = new KeysPressed();
  room.on(RoomEvent.DtmfReceived, (_code: number, digit: string, participant: RemoteParticipant) => keys.push(participant.identity, digit));
  room.on(RoomEvent.ParticipantDisconnected, (participant: RemoteParticipant) => keys.push(participant.identity, 'left'));
  // Keys come as data packets whatever is subscribed; the person's audio is not listened to.
  await room.connect(access.url.replace(/^http/, 'ws'), await token.toJwt(), { autoSubscribe: false, dynacast: false });
  const source = new AudioSource(PUBLISH_RATE, 1);
  try {
    const track = LocalAudioTrack.createAudioTrack('briefing', source);
    await room.localParticipant!.publishTrack(track, new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }));
  } catch (error) {
    await room.disconnect().catch(() => {});
    throw error;
  }
  return {
    async play(frames, signal) {
      let resampler: AudioResampler | undefined;
      const send = async (frame: AudioFrame) => {
        if (frame.sampleRate === PUBLISH_RATE && frame.channels === 1) return source.captureFrame(frame);
        resampler ??= new AudioResampler(frame.sampleRate, PUBLISH_RATE, 1);
        const mono = frame.channels === 1 ? frame : new AudioFrame(downmix(frame.data, frame.channels), frame.sampleRate, 1, frame.samplesPerChannel);
        for (const out of resampler.push(mono)) await source.captureFrame(out);
      };
      try {
        for await (const frame of frames) {
          if (signal.aborted) break;
          await send(frame);
        }
        if (resampler && !signal.aborted) for (const out of resampler.flush()) await source.captureFrame(out);
      } finally {
        resampler?.close();
      }
      if (signal.aborted) return source.clearQueue();
      await Promise.race([source.waitForPlayout(), new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }))]);
      if (signal.aborted) source.clearQueue();
    },
    nextKey: (identity, signal) => keys.next(identity, signal),
    async leave() {
      await source.close().catch(() => {});
      await room.disconnect().catch(() => {});
    },
  };
};
