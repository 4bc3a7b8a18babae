import { describe, expect, it } from 'vitest';
import { decodeMulaw, encodeMulaw } from '../../../media/mulaw.js';
import { deserializeCarrierMessage, FRAME_BYTES, MediaStreamSerializer } from './serializer.js';

const tone = (length: number, rate: number) => Int16Array.from({ length }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)));
const parsed = (messages: string[]) => messages.map((m) => JSON.parse(m) as { event: string; streamSid: string; media: { payload: string } });

describe('carrier messages in', () => {
  it('reads the start message: the stream id and the TwiML parameters that came back with it', () => {
    const start = JSON.stringify({
      event: 'start',
      sequenceNumber: '1',
      streamSid: 'MZ1',
      start: {
        streamSid: 'MZ1',
        callSid: 'CA1',
        customParameters: { token: 'abc' },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    expect(deserializeCarrierMessage(start, 16_000)).toEqual({ event: 'start', streamSid: 'MZ1', callSid: 'CA1', customParameters: { token: 'abc' } });
  });

  it('keeps only text parameters, and gives a start without any an empty stream id and no parameters', () => {
    expect(deserializeCarrierMessage(JSON.stringify({ event: 'start', start: { customParameters: { token: 5, other: 'x' } } }), 16_000)).toEqual({
      event: 'start',
      streamSid: '',
      callSid: '',
      customParameters: { other: 'x' },
    });
    expect(deserializeCarrierMessage('{"event":"start"}', 16_000)).toEqual({ event: 'start', streamSid: '', callSid: '', customParameters: {} });
  });

  it('decodes a 20 ms media payload of 8 kHz mu-law into PCM at the call rate: 160 bytes become 320 samples at 16 kHz', () => {
    const pcm8k = tone(FRAME_BYTES, 8000);
    const payload = Buffer.from(encodeMulaw(pcm8k)).toString('base64');
    const message = deserializeCarrierMessage(
      JSON.stringify({ event: 'media', streamSid: 'MZ1', media: { track: 'inbound', chunk: '1', timestamp: '20', payload } }),
      16_000,
    );
    expect(message).toMatchObject({ event: 'media', sampleRate: 16_000 });
    const samples = (message as { samples: Int16Array }).samples;
    expect(samples).toHaveLength(320);
    // Every other sample is an original one, as mu-law decoded it.
    const decoded = decodeMulaw(encodeMulaw(pcm8k));
    for (let i = 0; i < 160; i++) expect(samples[i * 2]).toBe(decoded[i]);
  });

  it('gives a media message without a payload no audio, rather than failing', () => {
    expect(deserializeCarrierMessage('{"event":"media","media":{}}', 16_000)).toMatchObject({ event: 'media', samples: new Int16Array(0) });
    expect(deserializeCarrierMessage('{"event":"media","media":{"payload":42}}', 16_000)).toMatchObject({ event: 'media', samples: new Int16Array(0) });
  });

  it('reads connected, mark and stop, and passes over events it has no use for', () => {
    expect(deserializeCarrierMessage('{"event":"connected","protocol":"Call","version":"1.0.0"}', 16_000)).toEqual({ event: 'connected' });
    expect(deserializeCarrierMessage('{"event":"mark","streamSid":"MZ1","mark":{"name":"greeting"}}', 16_000)).toEqual({ event: 'mark', name: 'greeting' });
    expect(deserializeCarrierMessage('{"event":"stop","streamSid":"MZ1","stop":{"callSid":"CA1"}}', 16_000)).toEqual({ event: 'stop' });
    expect(deserializeCarrierMessage('{"event":"dtmf","dtmf":{"digit":"1"}}', 16_000)).toEqual({ event: 'other' });
    expect(deserializeCarrierMessage('{}', 16_000)).toEqual({ event: 'other' });
  });

  it('refuses text that is not a JSON object', () => {
    for (const text of ['not json', 'null', '[]', '"start"', '42']) expect(deserializeCarrierMessage(text, 16_000)).toBeNull();
  });
});

describe('messages out', () => {
  it('sends the assistant audio as 20 ms media frames of 8 kHz mu-law on its stream', () => {
    const serializer = new MediaStreamSerializer('MZ1');
    // 60 ms at 16 kHz: three whole frames once at 8 kHz.
    const messages = parsed(serializer.audio(tone(960, 16_000), 16_000));
    expect(messages).toHaveLength(3);
    for (const m of messages) {
      expect(Object.keys(m)).toEqual(['event', 'streamSid', 'media']);
      expect(m).toMatchObject({ event: 'media', streamSid: 'MZ1' });
      expect(Buffer.from(m.media.payload, 'base64')).toHaveLength(FRAME_BYTES);
    }
  });

  it('holds back a partial frame until the next audio completes it, so no short frame goes out', () => {
    const serializer = new MediaStreamSerializer('MZ1');
    const audio = tone(400, 8000);
    // 100 samples: no whole frame yet.
    expect(serializer.audio(audio.subarray(0, 100), 8000)).toEqual([]);
    // 300 more: 400 in all, two frames out, 80 samples kept.
    const frames = parsed(serializer.audio(audio.subarray(100), 8000));
    expect(frames).toHaveLength(2);
    const sent = Buffer.concat(frames.map((f) => Buffer.from(f.media.payload, 'base64')));
    expect([...sent]).toEqual([...encodeMulaw(audio).subarray(0, 2 * FRAME_BYTES)]);
  });

  it('writes mark and clear for the stream, and a clear drops the partial frame held back', () => {
    const serializer = new MediaStreamSerializer('MZ1');
    expect(JSON.parse(serializer.mark('greeting'))).toEqual({ event: 'mark', streamSid: 'MZ1', mark: { name: 'greeting' } });
    serializer.audio(tone(100, 8000), 8000);
    expect(JSON.parse(serializer.clear())).toEqual({ event: 'clear', streamSid: 'MZ1' });
    // Had the 100 held-back samples survived, 60 new ones would complete a frame.
    expect(serializer.audio(tone(60, 8000), 8000)).toEqual([]);
  });
});
