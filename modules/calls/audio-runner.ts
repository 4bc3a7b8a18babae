// What a built-in transport (a carrier's Media Streams socket, the browser web-call page) needs from the agent worker
// in the same process, without the API importing the agent: open a call's audio link, push the caller's audio in,
// hear the assistant's audio as it plays. main.ts hands the local worker's implementation to the API.

export interface TranscriptLine {
  role: 'user' | 'assistant';
  text: string;
  /** A reply's `end_of_utterance_delay_ms`, `llm_ttft_ms`, `tts_ttfb_ms` and `e2e_latency_ms`, as the call stores them. */
  latency?: Record<string, number>;
}

export interface CallAudioLink {
  /** The caller's audio: mono 16-bit PCM at `sampleRate`, in arrival order. */
  pushCallerAudio(samples: Int16Array, sampleRate: number): void;
  /** Each frame of the assistant's audio as it plays, on the wall clock, so a transport can send it as it comes. */
  onAssistantAudio(listener: (samples: Int16Array, sampleRate: number) => void): void;
  /** Transcript lines as the session commits them; a reply carries its latency split (ms) where the framework timed it. */
  onTranscript(listener: (entry: TranscriptLine) => void): void;
  /** The caller's side closed. */
  hangUp(): void;
  /** Settles when the call has ended and its record is written. */
  readonly ended: Promise<{ status: string; endReason: string }>;
}

export interface CallAudioRunner {
  /** Starts the call (a `calls` row in a startable state) over a new audio link. */
  open(callId: number): CallAudioLink;
  /**
   * Whether the process is too loaded for one more call (agent/load/process-load.ts): the transports then refuse a new
   * call with a clear status rather than make every call on the process worse. Absent: never.
   */
  atCapacity?(): boolean;
}
