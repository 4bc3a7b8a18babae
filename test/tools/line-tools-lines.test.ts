import { initializeLogger } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierLine, carrierLineOf } from '../../agent/io/carrier-line.js';
import { dialTwiml } from '../../modules/telephony/carriers/twilio/twiml.js';
import { LiveKitSipLine, LIVEKIT_DTMF_INTERVAL_MS } from '../../agent/io/livekit-line.js';
import { PacedAudioOutput } from '../../agent/io/paced-audio-output.js';
import { LineError, WEB_LINE } from '../../agent/call/line.js';
import { CallLineTools } from '../../agent/call/line-tools.js';
import { CallEnding } from '../../agent/call/ending.js';
import { readConfig } from '../../lib/config.js';
import { detectDtmf } from '../../media/dtmf.js';
import { decodeMulaw, encodeMulaw } from '../../media/mulaw.js';
import { concatPcm, downmix, resampleLinear } from '../../media/pcm.js';
import { startFakeLiveKit, type FakeLiveKit } from '../fakes/livekit.js';
import { NOT_IN_PROGRESS, startFakeTwilioRest, type FakeTwilioRest } from '../fakes/twilio-rest.js';

// Each transport's line against its protocol fake: LiveKit's TransferSIPParticipant and DTMF events, the carrier's
// "update call" with TwiML and its in-band tones, and a web call's refusals.

initializeLogger({ pretty: false, level: 'silent' });

let livekit: FakeLiveKit;
let carrier: FakeTwilioRest;
beforeAll(async () => {
  [livekit, carrier] = await Promise.all([startFakeLiveKit(), startFakeTwilioRest()]);
  livekit.addRoom('call-room');
  carrier.addCall('CAlive');
  carrier.addCall('CAgone');
  carrier.failUpdates('CAgone', NOT_IN_PROGRESS);
});
afterAll(async () => {
  await Promise.all([livekit.close(), carrier.close()]);
});

function sipLine(published: Array<{ code: number; digit: string; at: number }> = [], room = 'call-room') {
  return new LiveKitSipLine({
    url: livekit.url,
    apiKey: livekit.apiKey,
    apiSecret: livekit.apiSecret,
    room,
    participantIdentity: 'sip_caller',
    dtmf: { publishDtmf: async (code, digit) => void published.push({ code, digit, at: Date.now() }) },
  });
}

describe('the LiveKit SIP line', () => {
  it('transfers the caller to a number as a tel: URI and to a SIP URI as it is, with the grants the server checks', async () => {
    await sipLine().transfer('+14155550123');
    await sipLine().transfer('sip:desk@pbx.example.com');
    const [number, uri] = livekit.of('TransferSIPParticipant').slice(-2);
    expect(number!.body).toMatchObject({
      roomName: 'call-room',
      participantIdentity: 'sip_caller',
      transferTo: 'tel:+14155550123',
      playDialtone: true,
      ringingTimeout: '30s',
    });
    expect(uri!.body.transferTo).toBe('sip:desk@pbx.example.com');
    expect(number!.claims.sip?.call).toBe(true);
    expect(number!.claims.video).toMatchObject({ roomAdmin: true, room: 'call-room' });
  });

  it('turns a SIP refusal into a sentence for the model that names the SIP answer and not the number', async () => {
    livekit.onTransfer('tel:+14155550186', { sipStatus: 486, reason: 'Busy Here' });
    const refused = await sipLine()
      .transfer('+14155550186')
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LineError);
    expect((refused as LineError).code).toBe('sip_error');
    expect((refused as LineError).message).toMatch(/busy.*SIP 486 Busy Here.*still on the line/);
    expect((refused as LineError).message).not.toContain('4155550186');
    // A room the server does not know is refused too, as an error of the phone system.
    const lost = await sipLine([], 'no-such-room')
      .transfer('+14155550123')
      .catch((e: unknown) => e);
    expect((lost as LineError).code).toBe('transfer_failed');
  });

  it('publishes each key as its RFC 4733 event, half a second apart, and waits half a second for w', async () => {
    const published: Array<{ code: number; digit: string; at: number }> = [];
    const started = Date.now();
    await sipLine(published).sendDtmf('1*#wA');
    expect(published.map((p) => [p.code, p.digit])).toEqual([
      [1, '1'],
      [10, '*'],
      [11, '#'],
      [12, 'A'],
    ]);
    const gaps = published.slice(1).map((p, i) => p.at - published[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(LIVEKIT_DTMF_INTERVAL_MS - 5);
    expect(gaps[2]).toBeGreaterThanOrEqual(LIVEKIT_DTMF_INTERVAL_MS + 500 - 5);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

function carrierLine(callSid: string, output = new PacedAudioOutput(), account: { authToken?: string; apiBaseUrl?: string } = {}) {
  return new CarrierLine({
    account: { accountSid: carrier.accountSid, authToken: account.authToken ?? carrier.authToken, apiBaseUrl: account.apiBaseUrl ?? carrier.url },
    callSid,
    output,
  });
}

describe("the carrier's Media Streams line", () => {
  it('transfers by updating the call with TwiML that dials the number, or the SIP URI, with the account as basic auth', async () => {
    await carrierLine('CAlive').transfer('+14155550123');
    await carrierLine('CAlive').transfer('sip:desk@pbx.example.com');
    const [number, uri] = carrier.updates.slice(-2);
    expect(number).toMatchObject({ accountSid: carrier.accountSid, callSid: 'CAlive' });
    expect(number!.form.Twiml).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Dial><Number>+14155550123</Number></Dial></Response>');
    expect(uri!.form.Twiml).toContain('<Dial><Sip>sip:desk@pbx.example.com</Sip></Dial>');
    expect(dialTwiml('sip:a@b.example;x=<y>')).toContain('<Sip>sip:a@b.example;x=&#60;y&#62;</Sip>');
  });

  it("passes the carrier's refusal on in words, and a wrong token or an unreachable API as failures", async () => {
    const ended = (await carrierLine('CAgone')
      .transfer('+14155550123')
      .catch((e: unknown) => e)) as LineError;
    expect(ended).toBeInstanceOf(LineError);
    expect(ended.code).toBe('carrier_error');
    expect(ended.detail).toMatchObject({ status: 400, carrierCode: 21220 });
    expect(ended.message).toContain('Call is not in-progress. Cannot redirect.');
    expect(ended.message).not.toContain('4155550123');
    const forged = (await carrierLine('CAlive', undefined, { authToken: 'wrong' })
      .transfer('+14155550123')
      .catch((e: unknown) => e)) as LineError;
    expect(forged.detail).toMatchObject({ status: 401, carrierCode: 20003 });
    const unknown = (await carrierLine('CAnobody')
      .transfer('+14155550123')
      .catch((e: unknown) => e)) as LineError;
    expect(unknown.detail).toMatchObject({ status: 404, carrierCode: 20404 });
    const down = (await carrierLine('CAlive', undefined, { apiBaseUrl: 'http://127.0.0.1:9' })
      .transfer('+14155550123')
      .catch((e: unknown) => e)) as LineError;
    expect(down.code).toBe('carrier_unreachable');
  });

  it('plays keys in-band on the call output, which read back as the same digits after the phone line’s mu-law', async () => {
    const output = new PacedAudioOutput();
    const heard: Int16Array[] = [];
    output.onPlayed((frame) => heard.push(encodeAndDecode(frame)));
    const started = Date.now();
    await carrierLine('CAlive', output).sendDtmf('90#w*');
    // Four keys of 200 ms and one pause of 500 ms, played on the wall clock.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_250);
    expect(detectDtmf(concatPcm(heard), 8000)).toBe('90#*');
    output.close();
  });

  it('is the line of media_stream calls only, and cannot transfer without the account', async () => {
    const callFields = { id: 1, direction: 'inbound', fromNumber: '+14155550199', toNumber: '+14155550100' };
    const output = new PacedAudioOutput();
    expect(carrierLineOf({ ...callFields, transport: 'browser', providerCallSid: null }, undefined, output)).toBeUndefined();
    const noAccount = carrierLineOf({ ...callFields, transport: 'media_stream', providerCallSid: 'CAlive' }, undefined, output)!;
    expect([noAccount.canTransfer, noAccount.canSendDtmf, noAccount.canConsult]).toEqual([false, true, false]);
    await expect(noAccount.transfer('+14155550123')).rejects.toThrow(/not set up/);
  });

  it('takes its account from TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN, the API from TWILIO_API_BASE_URL', () => {
    const sid = `AC${'ab'.repeat(16)}`;
    expect(readConfig({ TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: 't' }).carrier).toEqual({
      accountSid: sid,
      authToken: 't',
      apiBaseUrl: 'https://api.twilio.com',
    });
    expect(readConfig({ TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: 't', TWILIO_API_BASE_URL: 'http://127.0.0.1:4010' }).carrier?.apiBaseUrl).toBe(
      'http://127.0.0.1:4010',
    );
    expect(readConfig({ TWILIO_AUTH_TOKEN: 't' }).carrier).toBeUndefined();
    expect(() => readConfig({ TWILIO_ACCOUNT_SID: 'AC123' })).toThrow(/TWILIO_ACCOUNT_SID/);
    expect(() => readConfig({ TWILIO_ACCOUNT_SID: sid })).toThrow('TWILIO_ACCOUNT_SID needs TWILIO_AUTH_TOKEN');
    expect(() => readConfig({ TWILIO_API_BASE_URL: 'api.twilio.com' })).toThrow(/TWILIO_API_BASE_URL/);
  });
});

describe('a web call’s line', () => {
  it('refuses a transfer and keys with sentences the model can relay', async () => {
    expect([WEB_LINE.canTransfer, WEB_LINE.canSendDtmf]).toEqual([false, false]);
    await expect(WEB_LINE.transfer('+14155550123')).rejects.toThrow(/cannot be transferred.*web call/);
    await expect(WEB_LINE.sendDtmf('1')).rejects.toThrow(/cannot be sent.*web call/);
  });
});

describe('the hangup a transfer causes', () => {
  it('is held while the transfer is asked for, and passed on at once otherwise', () => {
    const tools = new CallLineTools({ ending: new CallEnding() });
    const hangup = new AbortController();
    const seen = tools.hangupSignal(hangup.signal)!;
    hangup.abort('worker_shutdown');
    expect(seen.aborted).toBe(true);
    expect(seen.reason).toBe('worker_shutdown');
  });
});

function encodeAndDecode(frame: AudioFrame): Int16Array {
  return decodeMulaw(encodeMulaw(resampleLinear(downmix(frame.data, frame.channels), frame.sampleRate, 8000)));
}
