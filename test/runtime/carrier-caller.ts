import { WebSocket } from 'ws';
import { decodeMulaw, encodeMulaw } from '../../media/mulaw.js';
import { resampleLinear } from '../../media/pcm.js';
import { twilioSignature } from '../../modules/telephony/carriers/twilio/signature.js';
import type { PrismaClient } from '../../prisma/client.js';
import { speechSamples } from '../fakes/scripted-caller.js';
import { until } from '../helpers/until.js';

// A caller on a carrier's line, as the carrier brings one to the service: its voice webhook, signed, then its Media
// Streams socket carrying the caller's audio. Shared by the tests of what an assistant does to a carrier's call.

export interface CarrierLine {
  /** The service's base URL. */
  base: string;
  /** The carrier account's auth token, which signs the webhook. */
  authToken: string;
  prisma: PrismaClient;
  /** What the assistant has said so far in each call, by call id: a caller may hang up once it has said a line. */
  assistantSaid: Map<number, string[]>;
  /** A safety cap on the stream; a call normally ends long before, by itself or once the caller hangs up. */
  capMs: number;
}

export interface CarrierCall {
  callId: number;
  /** Every 20 ms frame the caller heard, as 8 kHz PCM. */
  heard: Int16Array[];
  /** Hangs up as the carrier does: a `stop` event, then the socket closed. */
  stop: () => void;
  /** Settles with what was heard once the stream has ended. */
  closed: Promise<Int16Array[]>;
}

/**
 * One phone call as the carrier makes it: the webhook, the socket, one second of silence, the caller's words, then
 * silence until the call closes the socket (or `stop` is called), or until the caller hangs up a moment after the
 * assistant has said `hangUpAfter`.
 */
export async function carrierCall(line: CarrierLine, callSid: string, to: string, words: string, opts: { hangUpAfter?: string } = {}): Promise<CarrierCall> {
  const params = { To: to, From: '+14155550199', CallSid: callSid };
  const hook = await fetch(`${line.base}/telephony/twilio/voice`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': twilioSignature(line.authToken, `${line.base}/telephony/twilio/voice`, params),
    },
    body: new URLSearchParams(params).toString(),
  });
  const twiml = await hook.text();
  const streamUrl = /<Stream url="([^"]+)">/.exec(twiml)![1]!;
  const token = /<Parameter name="token" value="([^"]+)"\/>/.exec(twiml)![1]!;
  const callId = (await line.prisma.call.findFirstOrThrow({ where: { providerCallSid: callSid } })).id;
  const waitedFor = () => opts.hangUpAfter !== undefined && (line.assistantSaid.get(callId) ?? []).includes(opts.hangUpAfter);
  const ws = new WebSocket(streamUrl);
  await new Promise((r) => ws.once('open', r));
  const heard: Int16Array[] = [];
  ws.on('message', (data: Buffer) => {
    const msg = JSON.parse(data.toString()) as { event: string; media?: { payload: string } };
    if (msg.event === 'media') heard.push(decodeMulaw(Buffer.from(msg.media!.payload, 'base64')));
  });
  let open = true;
  const closed = new Promise<void>((r) => ws.once('close', () => r()));
  void closed.then(() => (open = false));
  const stop = () => {
    if (!open) return;
    ws.send(JSON.stringify({ event: 'stop', streamSid: `MZ${callSid}`, stop: { callSid } }));
    ws.close();
  };
  ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  ws.send(
    JSON.stringify({
      event: 'start',
      streamSid: `MZ${callSid}`,
      start: { streamSid: `MZ${callSid}`, callSid, customParameters: { token }, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
    }),
  );
  const speech = encodeMulaw(resampleLinear(await speechSamples(words), 16_000, 8000));
  const silence = encodeMulaw(new Int16Array(160));
  const started = Date.now();
  const streaming = (async () => {
    let hangUpAt: number | undefined;
    for (let chunk = 0; open && Date.now() - started < line.capMs; chunk++) {
      const due = started + chunk * 20;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      // As a caller does, a moment after what they waited for, not in the same millisecond.
      if (hangUpAt === undefined && waitedFor()) hangUpAt = Date.now() + 300;
      if (hangUpAt !== undefined && Date.now() >= hangUpAt) break;
      const offset = (chunk - 50) * 160;
      const payload = chunk >= 50 && offset < speech.length ? speech.subarray(offset, offset + 160) : silence;
      if (open)
        ws.send(
          JSON.stringify({
            event: 'media',
            streamSid: `MZ${callSid}`,
            media: { track: 'inbound', chunk: String(chunk), timestamp: String(chunk * 20), payload: Buffer.from(payload).toString('base64') },
          }),
        );
    }
    stop();
  })();
  return { callId, heard, stop, closed: closed.then(() => streaming).then(() => heard) };
}

/** The call of `callSid` once it has ended, with its turns in order. */
export async function endedCall(prisma: PrismaClient, callSid: string, timeoutMs: number) {
  return until(async () => {
    const c = await prisma.call.findFirst({ where: { providerCallSid: callSid }, include: { turns: { orderBy: { position: 'asc' } } } });
    return c && (c.status === 'completed' || c.status === 'failed') ? c : null;
  }, timeoutMs);
}
