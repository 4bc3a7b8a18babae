import { WebSocket } from 'ws';
import { decodeMulaw, encodeMulaw } from '../../media/mulaw.js';
import { resampleLinear, rms } from '../../media/pcm.js';
import { speechSamples } from './scripted-caller.js';

// The person a fake carrier's outbound call reaches, once they answer: the carrier connects the Media Streams socket
// named in the call's TwiML (`connected`, then `start` with the call's id and the `<Parameter>`s), streams the
// callee's side as 20 ms frames of 8 kHz mu-law on the wall clock, and plays what comes back. The callee waits for the
// assistant to finish speaking before each of its phrases (espeak audio), and hangs up after the last reply, or in the
// middle of the assistant's speech when told to.

export interface CalleeScript {
  /** How the phone responds to the call (default: answered). */
  outcome?: 'answer' | 'busy' | 'no-answer' | 'failed';
  /** How long it rings before the outcome (default 200 ms; an unanswered call rings for the call's `Timeout`). */
  ringMs?: number;
  /** The SIP response of a failed call (default 404). */
  sipCode?: number;
  /** The answering-machine verdict reported when the call asked for detection (default human). */
  answeredBy?: string;
  /** What the callee says, one phrase after each time the assistant stops speaking. */
  says?: string[];
  /** Hang up this long after the assistant starts speaking, mid-sentence. */
  hangUpMidSpeechMs?: number;
  /** Hang up after this long whatever happens (default 30 s). */
  maxMs?: number;
  /** Stay on the line, silent, once every phrase is said, until the other side ends the call or `maxMs`. */
  stayOnLine?: boolean;
  /**
   * A call whose TwiML asks for a key (`<Gather>`, a warm transfer's briefing): the key pressed once the `<Say>`s were
   * heard, `pressAfterMs` after answering (default 300 ms); none: the person lets the question go (or is a machine).
   */
  press?: string;
  pressAfterMs?: number;
}

export interface CalleeLeg {
  /** What the callee heard: the frames the service sent, decoded, with when each arrived. */
  heard: Array<{ at: number; samples: Int16Array }>;
  /** When the callee answered (the socket opened). */
  answeredAt: number;
  /** Settles when the leg is over: the callee hung up, or the service closed the stream. */
  ended: Promise<'callee_hung_up' | 'service_closed' | 'carrier_ended'>;
  /** The carrier ends the call (a REST update with Status=completed): the stream stops. */
  end(): void;
}

const FRAME = 160;
const LOUD = 500;
/** The assistant has stopped speaking once this much quiet followed its speech. */
const QUIET_MS = 900;
/** A callee that hangs up on its own gives up on a silent call after this. */
const MAX_CALL_MS = 30_000;
/**
 * One that stays on the line waits for the other side this long at most: a cap for a test gone wrong, as long as a
 * test's own timeout, so that a transfer slowed by a busy machine is not cut short by the callee.
 */
const STAY_ON_LINE_MS = 120_000;

export async function connectCallee(streamUrl: string, token: string, callSid: string, script: CalleeScript): Promise<CalleeLeg> {
  const ws = new WebSocket(streamUrl);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const answeredAt = Date.now();
  const streamSid = `MZ${callSid.slice(2)}`;
  const heard: CalleeLeg['heard'] = [];
  let lastLoudAt = 0;
  let firstLoudAt = 0;
  let heardSinceSpoke = false;
  ws.on('message', (data: Buffer) => {
    const msg = JSON.parse(data.toString()) as { event: string; media?: { payload: string } };
    if (msg.event !== 'media') return;
    const samples = decodeMulaw(Buffer.from(msg.media!.payload, 'base64'));
    const at = Date.now();
    heard.push({ at, samples });
    if (rms(samples) > LOUD) {
      lastLoudAt = at;
      firstLoudAt ||= at;
      heardSinceSpoke = true;
    }
  });

  let settle!: (how: 'callee_hung_up' | 'service_closed' | 'carrier_ended') => void;
  const ended = new Promise<'callee_hung_up' | 'service_closed' | 'carrier_ended'>((r) => (settle = r));
  let open = true;
  ws.once('close', () => {
    if (open) settle('service_closed');
    open = false;
  });
  const stop = (how: 'callee_hung_up' | 'carrier_ended') => {
    if (!open) return;
    open = false;
    ws.send(JSON.stringify({ event: 'stop', sequenceNumber: '0', streamSid, stop: { accountSid: 'AC', callSid } }));
    ws.close();
    settle(how);
  };

  ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  ws.send(
    JSON.stringify({
      event: 'start',
      sequenceNumber: '1',
      streamSid,
      start: {
        streamSid,
        accountSid: 'AC',
        callSid,
        tracks: ['inbound'],
        customParameters: { token },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    }),
  );

  const phrases = await Promise.all((script.says ?? []).map(async (text) => encodeMulaw(resampleLinear(await speechSamples(text), 16_000, 8000))));
  const silence = encodeMulaw(new Int16Array(FRAME));
  void (async () => {
    let speaking: Uint8Array | undefined;
    let offset = 0;
    let next = 0;
    for (let chunk = 0; open; chunk++) {
      const due = answeredAt + chunk * 20;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      // Audio that reached the socket while this process was stalled is read before the quiet is judged: a timer runs
      // before the sockets are read, and would otherwise take a stall for the assistant falling silent.
      await new Promise((r) => setImmediate(r));
      const now = Date.now();
      if (now - answeredAt > (script.maxMs ?? (script.stayOnLine ? STAY_ON_LINE_MS : MAX_CALL_MS))) return stop('callee_hung_up');
      if (script.hangUpMidSpeechMs !== undefined && firstLoudAt && now - firstLoudAt >= script.hangUpMidSpeechMs) return stop('callee_hung_up');
      const assistantDone = heardSinceSpoke && now - lastLoudAt >= QUIET_MS;
      if (!speaking && assistantDone && script.hangUpMidSpeechMs === undefined && next < phrases.length + (script.stayOnLine ? 0 : 1)) {
        if (next >= phrases.length && !script.stayOnLine) return stop('callee_hung_up');
        speaking = phrases[next++];
        offset = 0;
        heardSinceSpoke = false;
      }
      let payload = silence;
      if (speaking) {
        payload = new Uint8Array(FRAME).fill(0xff);
        payload.set(speaking.subarray(offset, offset + FRAME));
        offset += FRAME;
        if (offset >= speaking.length) speaking = undefined;
      }
      if (!open) return;
      ws.send(
        JSON.stringify({
          event: 'media',
          sequenceNumber: String(chunk + 2),
          streamSid,
          media: { track: 'inbound', chunk: String(chunk + 1), timestamp: String(chunk * 20), payload: Buffer.from(payload).toString('base64') },
        }),
      );
    }
  })();

  return { heard, answeredAt, ended, end: () => stop('carrier_ended') };
}
