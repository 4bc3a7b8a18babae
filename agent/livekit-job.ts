import { loadSecretsKey, SecretBox } from '../lib/secret-box.js';
import { AutoSubscribe, defineAgent, log, type JobContext, type JobProcess } from '@livekit/agents';
import {
  AudioSource,
  AudioStream,
  LocalAudioTrack,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
  type RemoteTrack,
  type Room,
} from '@livekit/rtc-node';
import { createPrismaClient } from '../prisma/client.js';
import { handedOverByWorker } from './livekit-job-handover.js';
import { vendorAccessOf } from './providers/speech-providers.js';
import { PacedAudioOutput } from './io/paced-audio-output.js';
import { PushAudioInput } from './io/push-audio-input.js';
import { runCall } from './call/run-call.js';
import { isSipParticipant, sipCallInfo, waitUntilAnswered } from './io/sip-participant.js';
import { LiveKitSipLine } from './io/livekit-line.js';
import { JOIN_GRACE_MS, openInboundCall, WEB_JOIN_WINDOW_MS } from '../modules/calls/index.js';
import { consultTrunkOfCall } from '../modules/telephony/index.js';
import { CONSULT_PERSON_IDENTITY } from './io/livekit-consult.js';
import { withTimeout } from '../lib/async.js';
import { survivePromiseLeaks } from '../lib/process.js';
import { loadVad } from './turn/vad.js';
import { startAgentTracing } from './tracing.js';
import type { Tracing } from '../lib/tracing/index.js';

// One LiveKit job is one call. The dispatch carries the call in its metadata (`{"call_id": 12}` or
// `{"call_sid": "CA..."}`); the caller's audio track feeds the call's input and the call's paced output feeds a
// published track, so the call runs through the same runCall as every other transport.

/** Room audio for the pipeline: 16 kHz mono is what VAD and the recognisers take. */
const INPUT_RATE = 16_000;
/** Published assistant audio; 48 kHz is WebRTC's native rate. */
const OUTPUT_RATE = 48_000;

/**
 * The call a dispatch names: `{"call_id": 12}` or `{"call_sid": "CA..."}` from the API; null for a dispatch that names
 * none, as a SIP dispatch rule's for an inbound call.
 */
export function callKeyFromMetadata(metadata: string): { callId?: number; callSid?: string } | null {
  let parsed: { call_id?: unknown; call_sid?: unknown };
  try {
    parsed = JSON.parse(metadata || '{}') as typeof parsed;
  } catch {
    return null;
  }
  if (typeof parsed?.call_id === 'number') return { callId: parsed.call_id };
  if (typeof parsed?.call_sid === 'string') return { callSid: parsed.call_sid };
  return null;
}

/**
 * The longest a job waits for its participant: a web call's token lets its browser join for 10 minutes, a dialled
 * callee joins while the phone rings; past the sweep's own limit for a web call, nobody is coming.
 */
const PARTICIPANT_WAIT_MS = WEB_JOIN_WINDOW_MS + JOIN_GRACE_MS;

/** This job process's trace export, when its worker exports traces. */
let tracing: Tracing | undefined;

export default defineAgent({
  prewarm: async (_proc: JobProcess) => {
    survivePromiseLeaks();
    // Spans of the calls this process runs go where its worker's go.
    const { tracing: traces } = handedOverByWorker();
    if (traces) tracing = await startAgentTracing(traces, 'voice-agent');
    // The VAD of the default endpointing delay (0.3 s); calls that need another window load theirs once per process.
    await loadVad(300);
  },
  entry: async (ctx: JobContext) => {
    let key = callKeyFromMetadata(ctx.job.metadata);
    // The worker's database (embedded or not), data folder and vendor access: this process reads no configuration of its own.
    const handover = handedOverByWorker();
    const prisma = createPrismaClient(handover.databaseUrl, { maxConnections: 2 });
    // The process ends with its job: the call's last spans are sent first.
    if (tracing) ctx.addShutdownCallback(() => tracing!.provider.forceFlush());
    await ctx.connect(undefined, AutoSubscribe.AUDIO_ONLY);
    const participant = await withTimeout(ctx.waitForParticipant(), PARTICIPANT_WAIT_MS);
    if (!participant) {
      // Nobody came: the room goes, and the call's row is ended by the workers' sweep with the reason that fits it.
      await prisma.$disconnect();
      await ctx.deleteRoom().catch(() => {});
      return ctx.shutdown('nobody joined');
    }
    const leave = async (reason: string, hangUp: boolean) => {
      await prisma.$disconnect();
      // Deleting the room hangs up a caller nobody will answer; otherwise the dialler has already dealt with it.
      if (hangUp) await ctx.deleteRoom().catch(() => {});
      ctx.shutdown(reason);
    };
    if (!key) {
      // A dispatch rule sent an inbound SIP caller: the number called finds the organisation and its assistant.
      if (!isSipParticipant(participant)) return leave('dispatch names no call', false);
      const sip = sipCallInfo(participant);
      const opened = await openInboundCall(prisma, {
        toNumber: sip.trunkNumber ?? '',
        fromNumber: sip.remoteNumber,
        transport: 'sip',
        providerCallSid: sip.providerCallSid,
        livekitRoom: ctx.room.name ?? null,
      });
      if ('rejected' in opened) {
        log().warn({ to: sip.trunkNumber, reason: opened.rejected }, 'inbound call refused');
        return leave(`inbound call refused: ${opened.rejected}`, true);
      }
      key = { callId: opened.call.id };
    }
    // An outbound callee joins the room while the phone rings; the call starts when it is answered. When it is not,
    // the dialler records busy or no answer and deletes the room.
    if (!(await waitUntilAnswered(ctx.room, participant))) return leave('callee did not answer', false);

    const input = new PushAudioInput();
    const pumpTrack = async (track: RemoteTrack) => {
      if (track.kind !== TrackKind.KIND_AUDIO) return;
      for await (const frame of new AudioStream(track, { sampleRate: INPUT_RATE, numChannels: 1 })) input.push(frame);
    };
    for (const publication of participant.trackPublications.values()) if (publication.track) void pumpTrack(publication.track as RemoteTrack);
    ctx.room.on(RoomEvent.TrackSubscribed, (track, _pub, p) => {
      if (p.identity === participant.identity) void pumpTrack(track);
    });

    const source = new AudioSource(OUTPUT_RATE, 1);
    const track = LocalAudioTrack.createAudioTrack('assistant', source);
    await ctx.room.localParticipant?.publishTrack(track, new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }));
    const output = new PacedAudioOutput(OUTPUT_RATE);
    output.onPlayed((frame) => void source.captureFrame(frame).catch(() => {}));

    // A phone caller's line can be transferred and take keys; a browser's (a web call) cannot. A warm transfer calls
    // the person through the trunk of the call's number.
    const secrets = new SecretBox(loadSecretsKey(handover.secretsKey, handover.dataDir));
    const localParticipant = ctx.room.localParticipant;
    const sipCaller = isSipParticipant(participant) && handover.livekit && localParticipant && ctx.room.name;
    const consultTrunk = sipCaller ? await consultTrunkOfCall(prisma, secrets, key).catch(() => null) : null;
    const line = sipCaller
      ? new LiveKitSipLine({
          ...handover.livekit!,
          room: ctx.room.name!,
          participantIdentity: participant.identity,
          dtmf: localParticipant!,
          consult: consultTrunk ?? undefined,
        })
      : undefined;
    const hangup = new AbortController();
    ctx.room.on(RoomEvent.ParticipantDisconnected, (p) => {
      if (p.identity === participant.identity) hangup.abort();
    });
    ctx.addShutdownCallback(async () => hangup.abort('worker_shutdown'));
    try {
      await runCall({
        prisma,
        ...key,
        audioInput: input,
        audioOutput: output,
        signal: hangup.signal,
        dataDir: handover.dataDir,
        access: vendorAccessOf(handover),
        secrets,
        allowPrivateToolTargets: handover.allowPrivateToolTargets,
        ...(line ? { line } : {}),
      });
      if (line?.handedOver) {
        // A warm transfer moved the person into this room: the call is theirs and the caller's now. The assistant's
        // track goes; once either of them hangs up, the room goes too, so the other is not left on a silent line.
        await source.close();
        await untilEitherLeaves(ctx.room, participant.identity, CONSULT_PERSON_IDENTITY);
        await ctx.deleteRoom().catch(() => {});
      }
      // Ended on our side (the assistant ended it, it idled out, it was transferred): whoever is left in the room is
      // hung up, as the framework's own end-call tool does; a SIP caller would otherwise stay on a silent line.
      else if (!hangup.signal.aborted) await ctx.deleteRoom().catch(() => {});
    } finally {
      input.end();
      output.close();
      await source.close().catch(() => {});
      await prisma.$disconnect();
      ctx.shutdown('call ended');
    }
  },
});

/** A moved participant shows up in the room within a second or two; past 30 s they are not coming. */
const MOVED_IN_WITHIN_MS = 30_000;

/**
 * Resolves once the caller or the person moved in is no longer in `room` (or the room is gone): the person is first
 * waited for, as their arrival may reach this client after the move's own answer.
 */
async function untilEitherLeaves(room: Room, caller: string, person: string): Promise<void> {
  const present = (identity: string) => room.remoteParticipants.has(identity);
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      room.off(RoomEvent.ParticipantConnected, check);
      room.off(RoomEvent.Disconnected, done);
      resolve();
    };
    const check = () => void (present(person) && done());
    const timer = setTimeout(done, MOVED_IN_WITHIN_MS);
    room.on(RoomEvent.ParticipantConnected, check);
    room.on(RoomEvent.Disconnected, done);
    if (present(person) || !room.isConnected) done();
  });
  await new Promise<void>((resolve) => {
    const check = () => {
      if (room.isConnected && present(caller) && present(person)) return;
      room.off(RoomEvent.ParticipantDisconnected, check);
      room.off(RoomEvent.Disconnected, check);
      resolve();
    };
    room.on(RoomEvent.ParticipantDisconnected, check);
    room.on(RoomEvent.Disconnected, check);
    check();
  });
}
