import { describe, expect, it } from 'vitest';
import { BROWSER_AUDIO_RATE, deserializeBrowserFrame, serializeAudio, serializeEnded, serializeTranscript } from './serializer.js';

describe('browser frames in', () => {
  it('reads a binary frame as 16 kHz 16-bit little-endian PCM', () => {
    const frame = Buffer.from([0x01, 0x00, 0xff, 0xff, 0x00, 0x80, 0xff, 0x7f]);
    expect(deserializeBrowserFrame(frame, true)).toEqual({ type: 'audio', samples: Int16Array.from([1, -1, -32768, 32767]), sampleRate: BROWSER_AUDIO_RATE });
  });

  it('drops the half sample of an odd-length binary frame', () => {
    expect(deserializeBrowserFrame(Buffer.from([0x02, 0x00, 0x07]), true)).toMatchObject({ samples: Int16Array.from([2]) });
  });

  it('reads the hangup control message, and ignores unknown or malformed text', () => {
    expect(deserializeBrowserFrame(Buffer.from('{"type":"hangup"}'), false)).toEqual({ type: 'hangup' });
    for (const text of ['{"type":"mute"}', 'hangup', 'null', '[]']) expect(deserializeBrowserFrame(Buffer.from(text), false)).toEqual({ type: 'other' });
  });

  it('reads a binary frame as audio even when its bytes spell the hangup message', () => {
    expect(deserializeBrowserFrame(Buffer.from('{"type":"hangup"}'), true)).toMatchObject({ type: 'audio' });
  });
});

describe('browser frames out', () => {
  it('writes the assistant audio as 16-bit little-endian PCM at 16 kHz, resampling other rates', () => {
    expect([...serializeAudio(Int16Array.from([1, -1, 32767]), 16_000)]).toEqual([0x01, 0x00, 0xff, 0xff, 0xff, 0x7f]);
    // 20 ms at 24 kHz is 20 ms at 16 kHz: 320 samples, 640 bytes.
    expect(serializeAudio(new Int16Array(480), 24_000)).toHaveLength(640);
  });

  it('writes only the samples of a view into a larger buffer', () => {
    const whole = Int16Array.from([9, 9, 5, 6, 9]);
    expect([...serializeAudio(whole.subarray(2, 4), 16_000)]).toEqual([0x05, 0x00, 0x06, 0x00]);
  });

  it('writes transcript and ended events as the JSON text frames the page reads', () => {
    expect(JSON.parse(serializeTranscript({ role: 'assistant', text: 'It is noon.' }))).toEqual({ type: 'transcript', role: 'assistant', text: 'It is noon.' });
    // A reply the framework timed carries its latency split, as the call stores it.
    const latency = { end_of_utterance_delay_ms: 400, llm_ttft_ms: 120, tts_ttfb_ms: 250, e2e_latency_ms: 800 };
    expect(JSON.parse(serializeTranscript({ role: 'assistant', text: 'It is noon.', latency }))).toEqual({
      type: 'transcript',
      role: 'assistant',
      text: 'It is noon.',
      latency,
    });
    expect(JSON.parse(serializeEnded({ status: 'completed', endReason: 'customer_hangup' }))).toEqual({
      type: 'ended',
      status: 'completed',
      end_reason: 'customer_hangup',
    });
  });
});
