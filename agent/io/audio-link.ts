import { voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { downmix } from '../../media/pcm.js';
import type { CallAudioLink, CallAudioRunner, TranscriptLine } from '../../modules/calls/index.js';
import { turnLatency } from '../turn/metrics.js';
import { PacedAudioOutput } from './paced-audio-output.js';
import { PushAudioInput } from './push-audio-input.js';
import type { LocalCallRunner } from '../local-runner.js';
import { FULL_LOAD, processLoad } from '../load/process-load.js';

// The local worker's side of a built-in transport: one call over a push input and a paced output, through the same
// runCall as every other transport.

export function audioRunnerOf(runner: LocalCallRunner): CallAudioRunner {
  return {
    open(callId: number): CallAudioLink {
      const input = new PushAudioInput();
      const output = new PacedAudioOutput();
      const hangup = new AbortController();
      const transcriptListeners: Array<(entry: TranscriptLine) => void> = [];
      // The caller's last message: its metrics hold the end-of-utterance delay of the reply that answers it.
      let lastUser: voice.ConversationItemAddedEvent['item'] | undefined;
      const ended = runner
        .start({
          callId,
          audioInput: input,
          audioOutput: output,
          signal: hangup.signal,
          onSession: (session) =>
            session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
              if (item.type !== 'message' || (item.role !== 'user' && item.role !== 'assistant') || !item.textContent) return;
              const line: TranscriptLine = { role: item.role, text: item.textContent };
              if (item.role === 'user') lastUser = item;
              else {
                const latency = turnLatency(item.metrics, lastUser?.type === 'message' ? lastUser.metrics : undefined);
                if (latency) line.latency = latency;
              }
              for (const l of transcriptListeners) l(line);
            }),
        })
        .then((r) => ({ status: r.status, endReason: r.endReason }))
        .finally(() => {
          input.end();
          output.close();
        });
      return {
        pushCallerAudio: (samples, sampleRate) => input.push(new AudioFrame(samples, sampleRate, 1, samples.length)),
        onAssistantAudio: (listener) => void output.onPlayed((frame) => listener(downmix(frame.data, frame.channels), frame.sampleRate)),
        onTranscript: (listener) => void transcriptListeners.push(listener),
        hangUp: () => hangup.abort(),
        ended,
      };
    },
    // A process with no call running always takes one: refusing it would help nobody, and an idle process's readings
    // are other programs' doing.
    atCapacity: () => runner.activeCalls > 0 && processLoad().load >= FULL_LOAD,
  };
}
